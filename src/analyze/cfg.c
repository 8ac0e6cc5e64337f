/* SPDX-License-Identifier: MIT */
/*
 * analyze-cfg.c - a layered CFG layout and its SVG.  Layers are the blocks in address order,
 * which keeps the picture next to the assembly listing; a compiler lays loops out so that
 * most edges are fall-throughs, straight down.  Jumps take a lane of their own on the side
 * (forward right, backward left) so that curves never share a track.
 */
#include <errno.h>

#include "analyze/cfg.h"

#define BOX_W 230	/* block box */
#define BOX_H 44
#define GAP 26		/* between layers: room for the fall-through arrow */
#define LANE 14		/* between side lanes */
#define PAD 12

struct cfg_geom {
	int left;		/* x of the boxes' left side */
	int nright, nleft;	/* side lanes */
	int width, height;
};

static int is_fall(const struct an_func_view *v, size_t b, int k)
{
	int s = v->bbs[b].succ[k];
	/* the second edge to the same next block is drawn as a jump, so both stay visible */
	return s == (int)b + 1 && !(k == 1 && v->bbs[b].succ[0] == s);
}

static int box_y(size_t b)
{
	return PAD + (int)b * (BOX_H + GAP);
}

static void geom_init(struct cfg_geom *g, const struct an_func_view *v)
{
	g->nright = g->nleft = 0;
	for (size_t b = 0; b < v->nbbs; b++)
		for (int k = 0; k < 2; k++)
			if (v->bbs[b].succ[k] >= 0 && !is_fall(v, b, k)) {
				if (v->bbs[b].succ[k] > (int)b)
					g->nright++;
				else
					g->nleft++;
			}
	g->left = PAD + (g->nleft + 1) * LANE;
	g->width = g->left + BOX_W + (g->nright + 1) * LANE + PAD;
	g->height = box_y(v->nbbs) - GAP + PAD;
	if (g->height < 2 * PAD)
		g->height = 2 * PAD;
}

/* White to red with the share: the hottest blocks stand out as in the asm pane's heat bars. */
static void fill_of(double share, char *buf, size_t n)
{
	int c = 255 - (int)(share * 160.0 + 0.5);
	snprintf(buf, n, "#ff%02x%02x", c, c);
}

static void write_block(FILE *f, const struct an_func_view *v, size_t b, const uint64_t *w,
			uint64_t total, const char *unit, const struct cfg_geom *g)
{
	const struct an_bb *bb = &v->bbs[b];
	double share = total ? (double)w[b] / (double)total : 0.0;
	char fill[16];
	int y = box_y(b);
	fill_of(share, fill, sizeof(fill));
	fprintf(f, "<g class=\"bb\" data-bb=\"%zu\"><title>BB %zu [%llx, %llx): %llu %s</title>\n",
		b, b, (unsigned long long)bb->start, (unsigned long long)bb->end,
		(unsigned long long)w[b], unit);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"%s\" "
		"stroke=\"#555\"/>\n", g->left, y, BOX_W, BOX_H, fill);
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">BB %zu</text>"
		"<text x=\"%d\" y=\"%d\">[%llx, %llx)</text>\n", g->left + 8, y + 17, b,
		g->left + 60, y + 17, (unsigned long long)bb->start, (unsigned long long)bb->end);
	fprintf(f, "<text x=\"%d\" y=\"%d\">%.1f%% of %s</text></g>\n", g->left + 8, y + 35,
		100.0 * share, unit);
}

/* lane: the next free lane on the edge's side, counted outwards from the boxes */
static void write_edge(FILE *f, size_t b, int s, int fall, int lane,
		       const struct cfg_geom *g, int id)
{
	int y1 = box_y(b), y2 = box_y((size_t)s);
	fprintf(f, "<path class=\"edge %s\" data-from=\"%zu\" data-to=\"%d\" ",
		fall ? "fall" : s > (int)b ? "jump" : "back", b, s);
	if (fall) {
		int x = g->left + BOX_W / 2;
		fprintf(f, "d=\"M%d %d L%d %d\"", x, y1 + BOX_H, x, y2 - 1);
	} else if (s > (int)b) {
		int x0 = g->left + BOX_W, xl = x0 + (lane + 1) * LANE;
		fprintf(f, "d=\"M%d %d C%d %d %d %d %d %d\"", x0, y1 + BOX_H - 10, xl, y1 + BOX_H - 10,
			xl, y2 + 10, x0 + 1, y2 + 10);
	} else {
		int x0 = g->left, xl = x0 - (lane + 1) * LANE;
		fprintf(f, "d=\"M%d %d C%d %d %d %d %d %d\"", x0, y1 + BOX_H - 10, xl, y1 + BOX_H - 10,
			xl, y2 + 10, x0 - 1, y2 + 10);
	}
	fprintf(f, " fill=\"none\" stroke=\"%s\" marker-end=\"url(#cfg-arrow-%d)\"/>\n",
		fall ? "#333" : "#36c", id);
}

static void write_edges(FILE *f, const struct an_func_view *v, const struct cfg_geom *g, int id)
{
	int right = 0, left = 0;
	for (size_t b = 0; b < v->nbbs; b++)
		for (int k = 0; k < 2; k++) {
			int s = v->bbs[b].succ[k];
			if (s < 0 || (size_t)s >= v->nbbs)
				continue;
			int fall = is_fall(v, b, k);
			int lane = fall ? 0 : s > (int)b ? right++ : left++;
			write_edge(f, b, s, fall, lane, g, id);
		}
}

int cfg_svg_write(FILE *f, const struct an_func_view *v, const uint64_t *weight,
		  const char *unit, int id)
{
	struct cfg_geom g;
	uint64_t total = 0;
	geom_init(&g, v);
	for (size_t b = 0; b < v->nbbs; b++)
		total += weight[b];
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cfg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"12\">\n",
		g.width, g.height, g.width, g.height);
	fprintf(f, "<defs><marker id=\"cfg-arrow-%d\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
		"markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><polygon "
		"points=\"0,0 10,5 0,10\" fill=\"#333\"/></marker></defs>\n", id);
	for (size_t b = 0; b < v->nbbs; b++)
		write_block(f, v, b, weight, total, unit, &g);
	write_edges(f, v, &g, id);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
