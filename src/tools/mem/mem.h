/* SPDX-License-Identifier: MIT */
/*
 * mem.h - the mem tool's offline parts, as the tool table (prof/tool.h) uses them:
 * model.c builds the model, db.c writes its tables, view.c exports and prints them,
 * cmd.c is `sonde mem`.
 */
#ifndef SONDE_TOOLS_MEM_H
#define SONDE_TOOLS_MEM_H

#include <stddef.h>
#include <stdio.h>

struct html;
struct memmodel;
struct report_opts;
struct sqlite3;

/* Write the model's tables and meta into the open, empty database db (db.c). */
int mem_db_fill(struct sqlite3 *db, const struct memmodel *m, char *err, size_t errlen);
/* DIR/mem/objects.csv, code.csv, threads.csv, object_threads.csv, object_code.csv (view.c). */
int mem_export(struct sqlite3 *db, const char *dir, char *err, size_t errlen);
/* The report in o->format (view.c). */
int mem_print(struct sqlite3 *db, FILE *out, const struct report_opts *o);
/* The page's sections: header, objects, code, objects x code, threads, objects x threads
 * (html.c). */
int mem_html(struct sqlite3 *db, struct html *page);
/* The views' queries, in the CSV files' column order (view.c). */
extern const char mem_objects_sql[], mem_code_sql[], mem_threads_sql[], mem_objthreads_sql[],
	mem_objcode_sql[];
/* Into buf, a row of mem_threads_sql's note: "truncated", "no sampling signal: SIGTRAP
 * blocked", both or "" (view.c). */
struct sqlite3_stmt;
void mem_thread_note(char *buf, size_t len, struct sqlite3_stmt *st);
/* The tables' count column heading: "periods" where the samples are weighted (the clock's
 * time budget: a sample stands for the periods it skipped), else "samples" (view.c).  The
 * usability review of 2026-11-29 read a one-sample row of weight 61 as "61 samples". */
const char *mem_count_heading(struct sqlite3 *db);
/* Into buf, the shares' sampling error: "within +-X points (95%, N effective samples)";
 * NULL where the counts are exact (inst at period 1) or nothing was sampled (view.c). */
const char *mem_share_error(struct sqlite3 *db, char *buf, size_t len);
/* sonde mem (cmd.c). */
int cmd_mem(int argc, char **argv);

#endif
