/* SPDX-License-Identifier: MIT */
/*
 * u-text.c - the terminal table helpers (ui/text.h): text_short_name, which keeps a C++
 * name's table column readable (miniFE's variance table was 1,100 characters wide).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ui/text.h"

static const char *sn(const char *name, size_t max)
{
	static char buf[512];
	return text_short_name(name, max, buf, sizeof(buf));
}

/* The table as printed (malloc'd), the table freed. */
static char *printed(struct text_table *t)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	text_table_print(t, f, "");
	fclose(f);
	text_table_free(t);
	return out;
}

TEST(short_enough_or_plain)
{
	const char *c = "ljForce._omp_fn.1";
	CHECK(sn(c, 60) == c);			/* short: the name itself */
	const char *plain = "a_very_long_c_function_name_without_any_brackets_at_all_x";
	CHECK(sn(plain, 10) != NULL);
	CHECK_STR(sn(plain, 10), plain);	/* nothing to shorten */
	CHECK(sn(NULL, 10) == NULL);
}

TEST(templates_and_parameters)
{
	CHECK_STR(sn("void miniFE::daxpby<miniFE::Vector<double, int, int> >(double, "
		     "miniFE::Vector<double, int, int> const&, double, miniFE::Vector<double, "
		     "int, int>&) [clone ._omp_fn.1]", 20),
		  "void miniFE::daxpby<...>(...) [clone ._omp_fn.1]");
	CHECK_STR(sn("miniFE::matvec_std<miniFE::CSRMatrix<double, int, int>, "
		     "miniFE::Vector<double, int, int> >::operator()(miniFE::CSRMatrix<double, "
		     "int, int>&) [clone .omp_outlined._debug__.7]", 20),
		  "miniFE::matvec_std<...>::operator()(...) [clone .omp_outlined._debug__.7]");
	/* empty lists stay as they are */
	CHECK_STR(sn("std::vector<int, std::allocator<int> >::size() const", 10),
		  "std::vector<...>::size() const");
}

TEST(operators_and_namespaces)
{
	CHECK_STR(sn("std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
		     "<std::char_traits<char> >(std::basic_ostream<char>&, char const*)", 10),
		  "std::basic_ostream<...>& std::operator<< <...>(...)");
	CHECK_STR(sn("(anonymous namespace)::helper<int>(int, long)", 10),
		  "(anonymous namespace)::helper<...>(...)");
	CHECK_STR(sn("bool __gnu_cxx::__ops::_Iter_less_val::operator()<int*, int const>(int*, "
		     "int const&) const", 10),
		  "bool __gnu_cxx::__ops::_Iter_less_val::operator()<...>(...) const");
}

TEST(call_paths_and_limits)
{
	/* a variance context: frames joined by " > ", their groups shortened; still longer
	 * than max, the first frame, " > ... > " and as many of the last as fit (the last at
	 * least) */
	CHECK_STR(sn("main > int miniFE::driver<double, int, int>(Box const&, Box&) > "
		     "void miniFE::cg_solve<A, B>(A&, B const&)", 70),
		  "main > int miniFE::driver<...>(...) > void miniFE::cg_solve<...>(...)");
	CHECK_STR(sn("main > int miniFE::driver<double, int, int>(Box const&, Box&) > "
		     "void miniFE::cg_solve<A, B>(A&, B const&)", 20),
		  "main > ... > void miniFE::cg_solve<...>(...)");
	CHECK_STR(sn("main > Driver::run > Hydro::doCycle > Hydro::doCycle._omp_fn.1 > "
		     "QCS::calcForce > QCS::setCornerDiv", 60),
		  "main > ... > QCS::calcForce > QCS::setCornerDiv");
	/* two frames: left */
	CHECK_STR(sn("main > int miniFE::driver<double, int, int>(Box const&, Box&)", 10),
		  "main > int miniFE::driver<...>(...)");
	/* a location the views append is kept */
	CHECK_STR(sn("void miniFE::daxpby<miniFE::Vector<double, int, int> >(double, double) "
		     "[clone ._omp_fn.1] (Vector_functions.hpp:206)", 20),
		  "void miniFE::daxpby<...>(...) [clone ._omp_fn.1] (Vector_functions.hpp:206)");
	CHECK_STR(sn("f<std::map<int, int> >(int) (a b.c:3)", 5), "f<...>(...) (a b.c:3)");
	/* a stripped library's stand-in: the note after a space is no parameter list */
	CHECK_STR(sn("[libgomp.so.1] GOMP_parallel_loop_nonmonotonic_runtime+0x40 (nearest "
		     "exported symbol)", 20),
		  "[libgomp.so.1] GOMP_parallel_loop_nonmonotonic_runtime+0x40 (nearest "
		  "exported symbol)");
	/* unbalanced: kept as written */
	CHECK_STR(sn("f<int(long", 3), "f<int(long");
	/* a small buffer cuts, NUL-terminated */
	char small[8];
	CHECK_STR(text_short_name("abcdefgh<x>(y)", 3, small, sizeof(small)), "abcdefg");
}

/* Every tool's tables shorten their name columns ('n') alike, and only those: sonde mem's
 * code table printed LULESH's 300-character names whole where the other tools cut them. */
TEST(name_columns)
{
	const char *longname = "double physics::accumulate_over_elements<double, long, "
			       "physics::Lagrange>(physics::Mesh<double, long>&, long)";
	const char *heads[] = { "samples", "function", "other function-name-heading" };
	const char *row[] = { "12", longname, longname };
	struct text_table *t = text_table_new(3, heads, "rnl");
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(text_table_add(t, row) == 0);
	char *out = printed(t);
	/* the heading row, then the row: the name column shortened, the 'l' one whole */
	const char *want = "samples  function                                            "
			   "other function-name-heading\n"
			   "     12  double physics::accumulate_over_elements<...>(...)  "
			   "double physics::accumulate_over_elements<double, long, "
			   "physics::Lagrange>(physics::Mesh<double, long>&, long)\n";
	CHECK_STR(out, want);
	free(out);
}

/* Two std::function invokers: the lambda that tells them apart kept, inside the template
 * argument; the parameter lists and the types they share shortened (a function type after
 * a space, "void (tf::Runtime&)", is kept as text_short_name keeps it; the trial of
 * 2026-11-28 printed 700-character rows). */
TEST(name_columns_distinct_parts)
{
	const char *a = "std::_Function_handler<void (tf::Runtime&), tf::FlowBuilder::for_each_index"
			"<int, int, int, bs_taskflow(int)::$_1, tf::GuidedPartitioner<tf::Default"
			"ClosureWrapper> >(int, int, int, bs_taskflow(int)::$_1, tf::GuidedPartitioner"
			"<tf::DefaultClosureWrapper>)::{lambda(tf::Runtime&)#1}>::_M_invoke(std::_Any"
			"_data const&, tf::Runtime&)";
	const char *b = "std::_Function_handler<void (tf::Runtime&), tf::FlowBuilder::for_each_index"
			"<int, int, int, bs_taskflow(int)::$_1, tf::GuidedPartitioner<tf::Default"
			"ClosureWrapper> >(int, int, int, bs_taskflow(int)::$_1, tf::GuidedPartitioner"
			"<tf::DefaultClosureWrapper>)::{lambda(tf::Runtime&)#2}>::_M_invoke(std::_Any"
			"_data const&, tf::Runtime&)";
	const char *heads[] = { "function" };
	const char *r1[] = { a }, *r2[] = { b };
	struct text_table *t = text_table_new(1, heads, "n");
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(text_table_add(t, r1) == 0);
	CHECK(text_table_add(t, r2) == 0);
	char *out = printed(t);
	CHECK_STR(out, "function\n"
		  "std::_Function_handler<void (tf::Runtime&), tf::FlowBuilder::for_each_index<...>"
		  "(...)::{lambda(...)#1}>::_M_invoke(...)\n"
		  "std::_Function_handler<void (tf::Runtime&), tf::FlowBuilder::for_each_index<...>"
		  "(...)::{lambda(...)#2}>::_M_invoke(...)\n");
	free(out);
}

/* Two names that shorten to the same string (PENNANT's template instances read as two
 * rows of one function) keep what tells them apart, the template arguments, and shorten
 * the rest (they were printed whole until 2026-11-28); a third, whose short form is its
 * own, stays short. */
/* More names alike than distinct_names takes (16): no crash (the review of 2026-11-28
 * found a free past its array), and since 2026-11-28 the short names numbered by the
 * whole names' order ("ns::f<...>(...) const #3" for ns::f<int, 10>: after <int, 0> and
 * <int, 1>), not the whole names (Kripke's table was 5,000 columns wide); an operator's
 * symbol ("<<") is kept as text, not read as a bracket. */
TEST(name_columns_many_alike)
{
	const char *heads[] = { "function" };
	char names[20][160];
	struct text_table *t = text_table_new(1, heads, "n");
	CHECK(t != NULL);
	if (!t)
		return;
	for (int i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "ns::f<int, %d>(double, float, ns::x<int>, "
			 "ns::y<long>, ns::z<char>) const", i);
		const char *row[] = { names[i] };
		CHECK(text_table_add(t, row) == 0);
	}
	char *out = printed(t);
	CHECK(out != NULL);
	for (int i = 0; out && i < 20; i++) {
		/* i in strcmp order of "0".."19": 0 1 10 11 .. 19 2 3 .. 9 */
		int k = i < 2 ? i + 1 : i >= 10 ? i - 7 : i + 11;
		char want[64];
		snprintf(want, sizeof(want), "ns::f<...>(...) const #%d\n", k);
		CHECK(strstr(out, want) != NULL);
		CHECK(strstr(out, names[i]) == NULL);
	}
	free(out);
	/* two instances told apart only deep in 400 characters of template arguments: the
	 * form that tells them apart would be longer than 4 x TEXT_NAME_MAX, so numbered */
	{
		char la[600], lb[600], pad[420];
		memset(pad, 'x', 400);
		pad[400] = 0;
		snprintf(la, sizeof(la), "void ns::run<ns::P<%s, 1>>(int)", pad);
		snprintf(lb, sizeof(lb), "void ns::run<ns::P<%s, 2>>(int)", pad);
		struct text_table *tl = text_table_new(1, heads, "n");
		const char *ra[] = { la }, *rb[] = { lb };
		CHECK(tl && text_table_add(tl, rb) == 0 && text_table_add(tl, ra) == 0);
		char *o = tl ? printed(tl) : NULL;
		CHECK_STR(o, "function\n"
			  "void ns::run<...>(...) #2\n"
			  "void ns::run<...>(...) #1\n");
		free(o);
	}
	const char *a = "bool ns::operator<<(ns::Stream<int, long, double>&, ns::Thing<int> const&,"
			" ns::Other<float> const&)";
	const char *b = "bool ns::operator<<(ns::Stream<int, long, float>&, ns::Thing<int> const&,"
			" ns::Other<float> const&)";
	const char *r1[] = { a }, *r2[] = { b };
	t = text_table_new(1, heads, "n");
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(text_table_add(t, r1) == 0);
	CHECK(text_table_add(t, r2) == 0);
	out = printed(t);
	/* the operator's "<<" is no bracket: the parameter lists differ, inside them the
	 * first argument's template arguments do */
	CHECK_STR(out, "function\n"
		  "bool ns::operator<<(ns::Stream<int, long, double>&, ns::Thing<...> const&, "
		  "ns::Other<...> const&)\n"
		  "bool ns::operator<<(ns::Stream<int, long, float>&, ns::Thing<...> const&, "
		  "ns::Other<...> const&)\n");
	free(out);
}

TEST(name_columns_ambiguous)
{
	const char *a = "void Mesh::calcCtrs<double, physics::Lagrange, long>(const double2*, "
			"double2*, int, int)";
	const char *b = "void Mesh::calcCtrs<float, physics::Lagrange, long>(const double2*, "
			"double2*, int, int)";
	const char *c = "void Mesh::calcVols<double, physics::Lagrange, long>(const double2*, "
			"double2*, int, int)";
	const char *heads[] = { "#", "function" };
	const char *rows[][2] = { { "1", a }, { "2", b }, { "3", c }, { "4", a } };
	struct text_table *t = text_table_new(2, heads, "rn");
	CHECK(t != NULL);
	if (!t)
		return;
	for (int i = 0; i < 4; i++)
		CHECK(text_table_add(t, rows[i]) == 0);
	char want[1024];
	char *out = printed(t);
	const char *sa = "void Mesh::calcCtrs<double, physics::Lagrange, long>(...)";
	const char *sb = "void Mesh::calcCtrs<float, physics::Lagrange, long>(...)";
	size_t w = strlen(sa);
	snprintf(want, sizeof(want), "#  %-*s\n1  %s\n2  %s\n3  %-*s\n4  %s\n", (int)w,
		 "function", sa, sb, (int)w, "void Mesh::calcVols<...>(...)", sa);
	/* the last cell of a row is not padded */
	char *p = strstr(want, "3  void Mesh::calcVols<...>(...)");
	CHECK(p != NULL);
	if (p) {
		char *e = p + strlen("3  void Mesh::calcVols<...>(...)");
		memmove(e, strchr(e, '\n'), strlen(strchr(e, '\n')) + 1);
	}
	char *h = strstr(want, "function");
	memmove(h + 8, strchr(h, '\n'), strlen(strchr(h, '\n')) + 1);
	CHECK_STR(out, want);
	free(out);

	/* a short name equal to another row's whole name: that row as it is, the other
	 * shortened as far as it still differs (its template arguments kept) */
	const char *heads2[] = { "function" };
	const char *r1[] = { "void Mesh::calcVols<...>(...)" }, *r2[] = { c };
	t = text_table_new(1, heads2, "n");
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(text_table_add(t, r1) == 0);
	CHECK(text_table_add(t, r2) == 0);
	out = printed(t);
	snprintf(want, sizeof(want), "function\nvoid Mesh::calcVols<...>(...)\n%s\n",
		 "void Mesh::calcVols<double, physics::Lagrange, long>(...)");
	CHECK_STR(out, want);
	free(out);
}

/* What f printed into a memory stream (text_fold, text_hang), NUL-terminated. */
static char *captured(void (*f)(FILE *, const char *, int, int), const char *text, int width,
		      int extra)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	f(m, text, width, extra);
	fclose(m);
	return buf;
}

/* Every line of s at most width columns, unless it is one word after its indentation. */
static int fits(const char *s, int width)
{
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "\n"), lead = strspn(p, " ");
		if ((int)n > width && memchr(p + lead, ' ', n - lead))
			return 0;
		p += n + (p[n] == '\n');
	}
	return 1;
}

TEST(fold_lines)
{
	/* short lines as written, their spacing kept; the long one filled, its first line as
	 * written up to the last space that fits, the rest under it indented by extra */
	char *o = captured(text_fold, "  a   b\n  period    900 ns, one two three four\n", 20, 4);
	CHECK_STR(o, "  a   b\n  period    900 ns,\n      one two three\n      four\n");
	free(o);
	/* exactly at the width: untouched; no trailing newline: one added */
	o = captured(text_fold, "0123456789 123456789", 20, 0);
	CHECK_STR(o, "0123456789 123456789\n");
	free(o);
	/* a first word wider than the line: cut after it, the rest folded */
	o = captured(text_fold, "  averyveryverylongword and then some more words here", 20, 2);
	CHECK(fits(o, 20));
	CHECK(strncmp(o, "  averyveryverylongword\n    and then some", 40) == 0);
	free(o);
	/* blank lines stay, the text's words all kept in order */
	o = captured(text_fold, "x\n\n  one two three four five six seven eight nine ten\n", 16, 2);
	CHECK(fits(o, 16));
	CHECK_STR(o, "x\n\n  one two three\n    four five\n    six seven\n    eight nine\n"
		     "    ten\n");
	free(o);
}

static void hang(FILE *f, const char *text, int width, int extra)
{
	(void)extra;
	text_hang(f, "  unit: ", "      ", text, width);
}

TEST(hang_label)
{
	char *o = captured(hang, "samples (clock source: volumes are sample-scaled)", 30, 0);
	CHECK_STR(o, "  unit: samples (clock source:\n      volumes are\n      sample-scaled)\n");
	free(o);
	o = captured(hang, "", 30, 0);	/* an empty value: the label alone, as printf did */
	CHECK_STR(o, "  unit: \n");
	free(o);
}

/* A list of names outside a table (report.c's atomics note) is shortened the same way:
 * three instances of one template read as three names, not one three times (the trial of
 * 2026-11-29, miniMD's compute_halfneigh_threaded), and a short name stays as it is. */
TEST(short_names_list)
{
	const char *full[] = {
		"void ForceLJ::compute_halfneigh_threaded<0, 0>(Atom&, Neighbor&, int)",
		"void ForceLJ::compute_halfneigh_threaded<0, 1>(Atom&, Neighbor&, int)",
		"void ForceLJ::compute_halfneigh_threaded<1, 0>(Atom&, Neighbor&, int)",
		"main",
	};
	char *out[4];
	CHECK(text_short_names(full, 4, out) == 0);
	CHECK_STR(out[3], "main");
	for (int a = 0; a < 3; a++)
		for (int b = a + 1; b < 3; b++)
			CHECK(strcmp(out[a], out[b]) != 0);
	for (int i = 0; i < 4; i++)
		free(out[i]);
	/* no two alike: each as text_short_name gives it */
	const char *two[] = { "ns::alpha<int>(double)", "ns::beta<int>(double)" };
	char *o2[2], sh[128];
	CHECK(text_short_names(two, 2, o2) == 0);
	CHECK_STR(o2[0], text_short_name(two[0], TEXT_NAME_MAX, sh, sizeof(sh)));
	free(o2[0]);
	free(o2[1]);
}

/* Two name columns: a name reads the same in both, though only one of them holds another
 * instance of its template (the trial of 2026-11-29: reuse's pairs, one function written
 * two ways in one row). */
TEST(name_columns_pooled)
{
	const char *heads[] = { "from", "to" };
	const char *a = "void ns::compute_halfneigh<0, 1>(ns::Atom&, ns::Neighbor&, int)";
	const char *b = "void ns::compute_halfneigh<1, 0>(ns::Atom&, ns::Neighbor&, int)";
	struct text_table *t = text_table_new(2, heads, "nn");
	const char *r1[] = { a, a }, *r2[] = { a, b };
	CHECK(t && text_table_add(t, r1) == 0 && text_table_add(t, r2) == 0);
	char *o = t ? printed(t) : NULL;
	CHECK(o != NULL);
	if (!o)
		return;
	/* a's form three times (both cells of row 1, the first of row 2), b's once, and no
	 * form that hides the arguments */
	int na = 0, nb = 0;
	for (const char *p = o; (p = strstr(p, "compute_halfneigh<0, 1>(...)")); p++)
		na++;
	for (const char *p = o; (p = strstr(p, "compute_halfneigh<1, 0>(...)")); p++)
		nb++;
	CHECK(na == 3 && nb == 1);
	CHECK(strstr(o, "compute_halfneigh<...>") == NULL);
	free(o);
}

/* A group's title row: printed alone from the first column, no part of the widths, a long
 * one shortened as a name; the rows after it aligned as if it were not there. */
TEST(group_rows)
{
	const char *heads[] = { "#", "n", "where" };
	struct text_table *t = text_table_new(3, heads, "rrl");
	const char *r1[] = { NULL, "12", "a.c:3" }, *r2[] = { NULL, "7", "b.c:10" };
	CHECK(t && text_table_add_group(t, "1  a title far wider than every column") == 0 &&
	      text_table_add(t, r1) == 0 && text_table_add(t, r2) == 0 &&
	      text_table_add_group(t, "2  std::vector<int, std::allocator<int> > "
				      "make_the_table_name_long_enough_to_cut(int, int)") == 0);
	CHECK(t && text_table_rows(t) == 4);
	char *o = t ? printed(t) : NULL;
	CHECK(o != NULL);
	if (!o)
		return;
	CHECK_STR(o, "#   n  where\n"
		     "1  a title far wider than every column\n"
		     "   12  a.c:3\n"
		     "    7  b.c:10\n"
		     "2  std::vector<...> make_the_table_name_long_enough_to_cut(...)\n");
	free(o);
}

int main(void)
{
	RUN(short_enough_or_plain);
	RUN(templates_and_parameters);
	RUN(operators_and_namespaces);
	RUN(call_paths_and_limits);
	RUN(name_columns);
	RUN(name_columns_ambiguous);
	RUN(name_columns_distinct_parts);
	RUN(short_names_list);
	RUN(name_columns_pooled);
	RUN(name_columns_many_alike);
	RUN(fold_lines);
	RUN(hang_label);
	RUN(group_rows);
	return CHECK_DONE();
}
