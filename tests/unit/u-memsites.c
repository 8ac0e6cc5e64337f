/* SPDX-License-Identifier: MIT */
/*
 * u-memsites.c - naming heap objects by allocation path (src/tools/mem/sites.c), on
 * scripted paths shaped like the ones real programs give: std::vector fields of one
 * constructor (LULESH's Domain), a templated wrapper called from many places
 * (LULESH's Allocate<T>), a wrapper of a wrapper, two calls on one line, a library's own
 * allocation (libgomp's thread pool), operator new.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "check.h"
#include "tools/mem/sites.h"

#define EXE "/home/u/lulesh2.0"
#define STL "/usr/include/c++/12/bits/stl_vector.h"
#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
#define LIBGOMP "/usr/lib/x86_64-linux-gnu/libgomp.so.1"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

/* A frame: function, file, line, column, module, offset. */
#define F(fn_, file_, line_, col_, mod_, off_)                                         \
	{ .function = fn_, .file = file_, .line = line_, .column = col_, .module = mod_,  \
	  .offset = off_ }

static const struct site_frame main_frame = F("main", "/home/u/lulesh.cc", 2700, 0, EXE, 0x900);

static int add(struct site_names *s, const struct site_frame *f, int n)
{
	struct site_frame all[16];
	memcpy(all, f, (size_t)n * sizeof(*f));
	all[n] = main_frame;
	int i = site_names_add(s, all, n + 1);
	CHECK(i >= 0);
	return i;
}

/* Fields resized in one constructor: system-header frames skipped, one object a line. */
TEST(vector_fields_by_line)
{
	struct site_names *s = site_names_new();
	const struct site_frame x[] = {
		F("operator new(unsigned long)", NULL, 0, 0, LIBSTDCXX, 0x100),
		F("std::vector<double>::_M_default_append", STL, 1011, 0, EXE, 0x200),
		F("Domain::Domain(int)", "/home/u/lulesh.h", 166, 0, EXE, 0x210),
	};
	struct site_frame y[3];
	memcpy(y, x, sizeof(x));
	y[1].offset = 0x300;
	y[2].line = 167;
	y[2].offset = 0x310;
	int a = add(s, x, 3), b = add(s, y, 3);
	CHECK(site_names_resolve(s) == 0);
	CHECK_STR(site_names_label(s, a), "Domain::Domain(int) (lulesh.h:166)");
	CHECK_STR(site_names_label(s, b), "Domain::Domain(int) (lulesh.h:167)");
	CHECK(strcmp(site_names_key(s, a), site_names_key(s, b)) != 0);
	CHECK_STR(site_names_path(s, a), "main (lulesh.cc:2700) > Domain::Domain(int) (lulesh.h:166)"
					 " > std::vector<double>::_M_default_append (stl_vector.h:1011)"
					 " > operator new(unsigned long) [libstdc++.so.6]");
	site_names_free(s);
}

/* Allocate<T> is called from two places: it is a wrapper, its callers name the objects;
 * a function called from one place keeps its own line. */
TEST(wrapper_found_from_paths)
{
	struct site_names *s = site_names_new();
	const struct site_frame p1[] = {
		F("Allocate<double>", "/home/u/lulesh.h", 113, 0, EXE, 0x400),
		F("CalcVolumeForceForElems", "/home/u/lulesh.cc", 1050, 0, EXE, 0x410),
	};
	const struct site_frame p2[] = {
		F("Allocate<double>", "/home/u/lulesh.h", 113, 0, EXE, 0x400),
		F("CalcQForElems", "/home/u/lulesh.cc", 2030, 0, EXE, 0x420),
	};
	const struct site_frame p3[] = {
		F("make_table", "/home/u/t.c", 7, 0, EXE, 0x500),
		F("setup", "/home/u/t.c", 30, 0, EXE, 0x510),
	};
	int a = add(s, p1, 2), b = add(s, p2, 2), c = add(s, p3, 2);
	int a2 = add(s, p1, 2);		/* the same path again: the same object */
	CHECK(site_names_resolve(s) == 0);
	CHECK_STR(site_names_label(s, a), "CalcVolumeForceForElems (lulesh.cc:1050)");
	CHECK_STR(site_names_label(s, b), "CalcQForElems (lulesh.cc:2030)");
	CHECK_STR(site_names_label(s, c), "make_table (t.c:7)");
	CHECK_STR(site_names_key(s, a), site_names_key(s, a2));
	const struct site_frame *f = site_names_frame(s, a);
	CHECK(f && f->line == 1050);
	site_names_free(s);
}

/* A thread routine that allocates, run by main and as a thread, whose start is sonde's own
 * (libsonde.so's thread_trampoline, under start_thread): no second caller, the routine
 * names its objects (RIBench's ri_thread was named "thread_trampoline (init.c:688)"). */
TEST(thread_start_through_sonde)
{
	struct site_names *s = site_names_new();
	const struct site_frame worker[] = {
		F("malloc", NULL, 0, 0, LIBC, 0x100),
		F("ri_thread", "/home/u/rbench.c", 69, 0, EXE, 0x600),
		F("thread_trampoline", "/opt/sonde/src/rt/init.c", 688, 0, "/opt/sonde/lib/libsonde.so", 0x700),
		F("start_thread", NULL, 0, 0, LIBC, 0x800),
	};
	const struct site_frame in_main[] = {
		F("malloc", NULL, 0, 0, LIBC, 0x100),
		F("ri_thread", "/home/u/rbench.c", 69, 0, EXE, 0x600),
		F("main", "/home/u/rbench.c", 120, 0, EXE, 0x900),
	};
	int a = site_names_add(s, worker, 4), b = site_names_add(s, in_main, 3);
	CHECK(a >= 0 && b >= 0);
	CHECK(site_names_resolve(s) == 0);
	CHECK_STR(site_names_label(s, a), "ri_thread (rbench.c:69)");
	CHECK_STR(site_names_label(s, b), "ri_thread (rbench.c:69)");
	site_names_free(s);
}

/* xmalloc wraps new_node and other; new_node is itself called from two lines of insert. */
TEST(wrapper_of_wrapper)
{
	struct site_names *s = site_names_new();
	const struct site_frame p1[] = {
		F("xmalloc", "/home/u/x.c", 3, 0, EXE, 0x10),
		F("new_node", "/home/u/x.c", 10, 0, EXE, 0x20),
		F("insert", "/home/u/x.c", 20, 0, EXE, 0x30),
	};
	struct site_frame p2[3];
	memcpy(p2, p1, sizeof(p1));
	p2[2].line = 21;
	p2[2].offset = 0x38;
	const struct site_frame p3[] = {
		F("xmalloc", "/home/u/x.c", 3, 0, EXE, 0x10),
		F("other", "/home/u/x.c", 50, 0, EXE, 0x60),
	};
	int a = add(s, p1, 3), b = add(s, p2, 3), c = add(s, p3, 2);
	CHECK(site_names_resolve(s) == 0);
	CHECK_STR(site_names_label(s, a), "insert (x.c:20)");
	CHECK_STR(site_names_label(s, b), "insert (x.c:21)");
	CHECK_STR(site_names_label(s, c), "other (x.c:50)");
	site_names_free(s);
}

/* Two calls on one line: two objects, told apart by column, else by the call's offset. */
TEST(two_calls_one_line)
{
	struct site_names *s = site_names_new();
	const struct site_frame a1[] = { F("pair", "/home/u/p.c", 5, 0, EXE, 0x70) };
	const struct site_frame a2[] = { F("pair", "/home/u/p.c", 5, 0, EXE, 0x7c) };
	const struct site_frame c1[] = { F("both", "/home/u/p.c", 9, 12, EXE, 0x90) };
	const struct site_frame c2[] = { F("both", "/home/u/p.c", 9, 30, EXE, 0x9c) };
	int a = add(s, a1, 1), b = add(s, a2, 1), c = add(s, c1, 1), d = add(s, c2, 1);
	CHECK(site_names_resolve(s) == 0);
	/* no column: the calls' order on the line (their offsets: "[call at +0x70]" until
	 * 2026-11-29) */
	CHECK_STR(site_names_label(s, a), "pair (p.c:5) [call 1 of 2 on the line]");
	CHECK_STR(site_names_label(s, b), "pair (p.c:5) [call 2 of 2 on the line]");
	CHECK_STR(site_names_label(s, c), "both (p.c:9) [column 12]");
	CHECK_STR(site_names_label(s, d), "both (p.c:9) [column 30]");
	site_names_free(s);
}

/* Four calls in a source file of text (a temporary one, ending in suffix), call k at
 * line[k] and column col[k]: each is labelled with its column, and with what it is
 * assigned to, name[k], where that is not NULL. */
static void check_columns(const char *suffix, const char *text, const int line[4],
			  const int col[4], const char *const name[4])
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/u-memsites-XXXXXX%s", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	const char *base = strrchr(path, '/') + 1;
	struct site_names *s = site_names_new();
	int id[4];
	for (int k = 0; k < 4; k++) {
		const struct site_frame fr[] = { F("m", path, line[k], col[k], EXE, 0x10 * (k + 1)) };
		id[k] = add(s, fr, 1);
	}
	CHECK(site_names_resolve(s) == 0);
	for (int k = 0; k < 4; k++) {
		char want[256];
		snprintf(want, sizeof(want), "m (%s:%d) [column %d%s%s]", base, line[k], col[k],
			 name[k] ? ": " : "", name[k] ? name[k] : "");
		CHECK_STR(site_names_label(s, id[k]), want);
	}
	site_names_free(s);
	unlink(path);
}

/* Calls on one line told apart by column, with what each is assigned to where the source
 * is readable (the usability review of 2026-11-29: "[column 13/29/45/67]" to count): the
 * variable, through a cast and a member; a call that is not assigned keeps its column
 * alone, as does a source that is gone. */
TEST(column_names_assignment)
{
	static const char l1[] = "  double *a = malloc(n), *b = (double *) malloc(n);";
	static const char l2[] = "  p->data[1] = calloc(n, 8); if (malloc(n) == q) x = 1;";
	char text[256];
	snprintf(text, sizeof(text), "%s\n%s\n", l1, l2);
	const int line[4] = { 1, 1, 2, 2 };
	const int col[4] = {
		(int)(strstr(l1, "malloc") - l1) + 1,
		(int)(strstr(strstr(l1, "(double"), "malloc") - l1) + 1,	/* a cast */
		(int)(strstr(l2, "calloc") - l2) + 1,
		(int)(strstr(l2, "malloc") - l2) + 1,
	};
	const char *const name[4] = { "a", "b", "p->data[1]", NULL };
	check_columns(".c", text, line, col, name);
}

/* C++'s new, three on a line: g++ gives `new double[n]` the column of its ']', clang the
 * column of `new`; both are named by what they are assigned to (the trial of 2026-11-29:
 * a constructor's three arrays read "[column 40]", "[column 59]", "[column 78]"); a new
 * that is an argument, not assigned, keeps its column alone. */
TEST(column_names_cxx_new)
{
	static const char l[] =
		"  a = new double[n * 2][3]; c.b = new Cell<int, 2>(k)(); f(new int[n]);\n";
	const int line[4] = { 1, 1, 1, 1 };
	const int col[4] = {
		(int)(strstr(l, "][3]") - l) + 4,		/* g++: at the last ']' */
		(int)(strstr(l, "new Cell") - l) + 1,		/* clang: at new */
		(int)(strstr(l, "(k)()") - l) + 5,		/* at the last ')' */
		(int)(strrchr(l, ']') - l) + 1,
	};
	const char *const name[4] = { "a", "c.b", "c.b", NULL };
	check_columns(".cpp", l, line, col, name);
}

/* A Fortran ALLOCATE(a(n), b(n), c(n)): gfortran gives the three mallocs one line and
 * column; they are three objects, in the statement's order (NPB CG's 13 arrays read as one,
 * the trial of 2026-11-29).  A C call the compiler copied (an unrolled loop: one line, one
 * column, two offsets) stays one site. */
TEST(fortran_allocate_one_column)
{
	struct site_names *s = site_names_new();
	int id[3];
	for (int i = 0; i < 3; i++) {
		const struct site_frame f[] = { F("alloc_space", "/home/u/cg_data.f90", 109, 7, EXE,
						  (uint64_t)(0x300 + 0x20 * (2 - i))) };
		id[i] = add(s, f, 1);
	}
	const struct site_frame u1[] = { F("ri_thread", "/home/u/rbench.c", 75, 10, EXE, 0x500) };
	const struct site_frame u2[] = { F("ri_thread", "/home/u/rbench.c", 75, 10, EXE, 0x540) };
	int x = add(s, u1, 1), y = add(s, u2, 1);
	CHECK(site_names_resolve(s) == 0);
	CHECK_STR(site_names_label(s, id[2]), "alloc_space (cg_data.f90:109) [call 1 of 3 on the line]");
	CHECK_STR(site_names_label(s, id[1]), "alloc_space (cg_data.f90:109) [call 2 of 3 on the line]");
	CHECK_STR(site_names_label(s, id[0]), "alloc_space (cg_data.f90:109) [call 3 of 3 on the line]");
	CHECK(strcmp(site_names_key(s, id[0]), site_names_key(s, id[1])) != 0);
	CHECK_STR(site_names_label(s, x), "ri_thread (rbench.c:75)");
	CHECK_STR(site_names_key(s, x), site_names_key(s, y));
	site_names_free(s);
}

/* miniMD's Atom::growarray: a wrapper (called from two places), whose one call in
 * addatom makes four arrays at four lines of its own.  Named at the caller they share its
 * label and column: the wrapper's line inside tells them apart, not an ordinal ("#2",
 * "#3": the trial of 2026-11-27). */
TEST(one_call_many_objects)
{
	struct site_names *s = site_names_new();
	int id[4], lines[4] = { 75, 76, 77, 79 };
	for (int i = 0; i < 4; i++) {
		const struct site_frame p[] = {
			F("Atom::growarray()", "/home/u/atom.cpp", lines[i], 0, EXE,
			  (uint64_t)(0x100 + 8 * i)),
			F("Atom::addatom(double, double)", "/home/u/atom.cpp", 89, 31, EXE, 0x200),
		};
		id[i] = add(s, p, 2);
	}
	const struct site_frame q[] = {
		F("Atom::growarray()", "/home/u/atom.cpp", 75, 0, EXE, 0x100),
		F("Atom::unpack_border(int, double*)", "/home/u/atom.cpp", 218, 9, EXE, 0x300),
	};
	int u = add(s, q, 2);
	CHECK(site_names_resolve(s) == 0);
	char want[160];
	for (int i = 0; i < 4; i++) {
		snprintf(want, sizeof(want), "Atom::addatom(double, double) (atom.cpp:89) [column 31]"
			 " [in Atom::growarray() (atom.cpp:%d)]", lines[i]);
		CHECK_STR(site_names_label(s, id[i]), want);
	}
	CHECK_STR(site_names_label(s, u), "Atom::unpack_border(int, double*) (atom.cpp:218)");
	site_names_free(s);
}

/* libgomp allocating its thread pool while the program starts a parallel region; libc's
 * stdio buffer; strdup's block is the caller's data. */
TEST(library_own_allocations)
{
	struct site_names *s = site_names_new();
	const struct site_frame g[] = {
		F("gomp_malloc", NULL, 0, 0, LIBGOMP, 0x1000),
		F("GOMP_parallel", NULL, 0, 0, LIBGOMP, 0x2000),
		F("CalcKinematicsForElems", "/home/u/lulesh.cc", 1600, 0, EXE, 0x700),
	};
	const struct site_frame io[] = {
		F("_IO_file_doallocate", "filedoalloc.c", 101, 0, LIBC, 0x3000),
		F("__printf", "printf.c", 33, 0, LIBC, 0x3100),
		F("report", "/home/u/r.c", 4, 0, EXE, 0x800),
	};
	const struct site_frame d[] = {
		F("__strdup", "strdup.c", 42, 0, LIBC, 0x4000),
		F("report", "/home/u/r.c", 8, 0, EXE, 0x810),
	};
	int a = add(s, g, 3), b = add(s, io, 3), c = add(s, d, 2);
	CHECK(site_names_resolve(s) == 0);
	CHECK_STR(site_names_label(s, a), "[libgomp.so.1] for CalcKinematicsForElems (lulesh.cc:1600)");
	CHECK_STR(site_names_label(s, b), "[libc.so.6] for report (r.c:4)");
	CHECK_STR(site_names_label(s, c), "report (r.c:8)");
	site_names_free(s);
}

/* No symbols at all: the first frame by module and offset. */
TEST(no_symbols)
{
	struct site_names *s = site_names_new();
	const struct site_frame f = F(NULL, NULL, 0, 0, "/home/u/stripped", 0x1234);
	int i = site_names_add(s, &f, 1);
	CHECK(site_names_resolve(s) == 0);
	CHECK_STR(site_names_label(s, i), "[unknown] (stripped+0x1234)");
	CHECK(site_is_system_path("/usr/include/stdlib.h"));
	CHECK(site_is_system_path("/lib/x86_64-linux-gnu/libc.so.6"));
	CHECK(!site_is_system_path("/usr/local/src/app/a.c"));
	CHECK(!site_is_system_path("/home/u/a.c"));
	site_names_free(s);
}

/* A stripped program (its frames "[no symbols]"): setup() mallocs twice, buf() once and is
 * called twice; four objects, each named by its call's and its callers' return addresses.
 * Before, every function was one "[no symbols]": setup's two calls were one object, and
 * the labels read "[call 3 of 3 on the line]" (the usability review of 2026-11-29, H1). */
TEST(stripped_program)
{
	struct site_names *s = site_names_new();
#define NS(off) F("[no symbols]", NULL, 0, 0, "/home/u/setup", off)
	const struct site_frame pa[] = { F("malloc", NULL, 0, 0, LIBC, 0x50), NS(0x12b2),
					 NS(0x114b), NS(0x11a0),
					 F("__libc_start_call_main", NULL, 0, 0, LIBC, 0x29d90) };
	struct site_frame pb[5], pu[5], pv[5];
	memcpy(pb, pa, sizeof(pa));
	memcpy(pu, pa, sizeof(pa));
	pb[1].offset = 0x12c3;		/* setup's second malloc */
	pu[1].offset = 0x131c;		/* buf's, called from main twice */
	pu[2].offset = 0x1155;
	memcpy(pv, pu, sizeof(pu));
	pv[2].offset = 0x1162;
	int a = site_names_add(s, pa, 5), b = site_names_add(s, pb, 5);
	int u = site_names_add(s, pu, 5), v = site_names_add(s, pv, 5);
	int a2 = site_names_add(s, pa, 5);
	/* a stretch named after its nearest export (a stripped C++ program keeps a few):
	 * no function either, named by its address (miniXyce's read "#2", "#3") */
	struct site_frame pg[5];
	memcpy(pg, pa, sizeof(pa));
	pg[1] = (struct site_frame)F("MPI::Intracomm::Create(MPI::Group const&) const+0x94 "
				     "(nearest exported symbol)", NULL, 0, 0, "/home/u/setup", 0x1400);
	int g = site_names_add(s, pg, 5);
#undef NS
	CHECK(site_names_resolve(s) == 0);
	CHECK_STR(site_names_label(s, g), "[setup]+0x1400 (from +0x114b < +0x11a0)");
	CHECK_STR(site_names_label(s, a), "[setup]+0x12b2 (from +0x114b < +0x11a0)");
	CHECK_STR(site_names_label(s, b), "[setup]+0x12c3 (from +0x114b < +0x11a0)");
	CHECK_STR(site_names_label(s, u), "[setup]+0x131c (from +0x1155 < +0x11a0)");
	CHECK_STR(site_names_label(s, v), "[setup]+0x131c (from +0x1162 < +0x11a0)");
	const int all[] = { a, b, u, v };
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			CHECK(strcmp(site_names_key(s, all[i]), site_names_key(s, all[j])) != 0);
	CHECK_STR(site_names_key(s, a), site_names_key(s, a2));
	site_names_free(s);
}

int main(void)
{
	RUN(vector_fields_by_line);
	RUN(wrapper_found_from_paths);
	RUN(wrapper_of_wrapper);
	RUN(thread_start_through_sonde);
	RUN(two_calls_one_line);
	RUN(column_names_assignment);
	RUN(column_names_cxx_new);
	RUN(fortran_allocate_one_column);
	RUN(one_call_many_objects);
	RUN(library_own_allocations);
	RUN(no_symbols);
	RUN(stripped_program);
	return CHECK_DONE();
}
