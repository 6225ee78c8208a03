/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layoutctl __render FILE: a command's document from fixed records, for the golden tests.
 *
 * FILE is a JSON document as a command writes it (its members and lists in order, strings
 * escaped as every sink escapes them, so any byte can be given). It is read back like the
 * status file (out_unescape_tree()), and each member and list item is handed to the output
 * layer exactly as the command hands its records: out_member(), out_list_begin(),
 * out_item(). So --format text|json|xml prints what the command would print for those records.
 *
 * --check FILE... renders the three formats into memory and compares their fields: every leaf
 * of the JSON document, every leaf element of the XML one (arrays named as out_item() names
 * their items), and every field the text view read or names as hidden; and every hidden
 * entry must match a field of some document (--check-hidden, for the golden records: a live
 * document need not have every optional field). One line per difference and exit 1: a renderer
 * change that drops or adds a field in one format only is caught here.
 */
#include "cli.h"
#include "msg.h"
#include "output.h"
#include "textview.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>

const char *const cmd_render_usage[] = {
	"FILE",
	"Print a command's document from the records in FILE (tests); with --check, compare the",
	"fields of its three formats (several FILEs may be given).",
	NULL,
};

static bool check, check_hidden;

const struct lopt cmd_render_options[] = {
	OPT_FLAG(0, "check", &check, "compare the fields of the text, JSON and XML renderings"),
	OPT_FLAG(0, "check-hidden", &check_hidden,
		 "--check, and every field a view names hidden is in some FILE (golden records)"),
	OPT_HELP(),
	OPT_END(),
};

static const struct out_view *const views[] = {
	&scan_view, &fix_view, &info_view, &status_view, &explain_view, &drain_view, NULL,
};

static const struct out_view *find_view(const char *command)
{
	size_t i;

	for (i = 0; views[i]; i++)
		if (!strcmp(views[i]->command, command))
			return views[i];
	return NULL;
}

/* Hand the members of @doc (a copy: the writers escape in place) to the output layer. */
static void replay(struct json_object *doc, unsigned fmt, FILE *f, const char *command,
		   const struct out_view *view, struct out_fields *read)
{
	struct json_object *copy = NULL, *err = NULL;
	struct out *o;
	size_t i;

	if (json_object_deep_copy(doc, &copy, NULL))
		abort();
	o = out_open_view(fmt, f, command, view);
	out_track(o, read);
	json_object_object_foreach(copy, k, v)
	{
		if (!strcmp(k, "format_version") || !strcmp(k, "command"))
			continue;
		if (!strcmp(k, "error")) {
			err = v;
			continue;
		}
		if (json_object_is_type(v, json_type_array) && out_view_is_list(view, k)) {
			out_list_begin(o, k);
			for (i = 0; i < json_object_array_length(v); i++)
				out_item(o, json_object_get(json_object_array_get_idx(v, i)));
			out_list_end(o);
		} else {
			out_member(o, k, json_object_get(v));
		}
	}
	if (err) {
		struct json_object *m = NULL, *e = NULL;

		json_object_object_get_ex(err, "message", &m);
		json_object_object_get_ex(err, "op_errno", &e);
		out_close(o, -1, json_object_get_int(e), json_object_get_string(m));
	} else {
		out_close(o, 0, 0, NULL);
	}
	json_object_put(copy);
}

/* A generalised JSON path as XML names it: "dirs[].x" is "dirs.dir.x". */
static void xml_name(const char *p, char *buf, size_t n)
{
	size_t o = 0;

	while (*p && o + 1 < n) {
		const char *b = strstr(p, "[]");
		const char *seg;
		char item[128], word[128];
		size_t l;

		if (!b) {
			snprintf(buf + o, n - o, "%s", p);
			return;
		}
		/* the key just before "[]" */
		for (seg = b; seg > p && seg[-1] != '.'; seg--)
			;
		snprintf(word, sizeof(word), "%.*s", (int)(b - seg), seg);
		out_item_name(word, item, sizeof(item));
		l = (size_t)snprintf(buf + o, n - o, "%.*s.%s", (int)(b - p), p, item);
		o += l < n - o ? l : n - o - 1;
		p = b + 2;
	}
}

static void xml_leaves(xmlNode *node, const char *prefix, struct out_fields *s)
{
	xmlNode *c;
	bool kids = false;
	char p[512];

	for (c = node->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		kids = true;
		snprintf(p, sizeof(p), "%s%s%s", prefix, prefix[0] ? "." : "",
			 (const char *)c->name);
		xml_leaves(c, p, s);
	}
	if (!kids && prefix[0])
		out_fields_add(s, prefix);
}

/* @path is @h (up to an '@') or below it. */
static bool below(const char *path, const char *h)
{
	size_t l = strcspn(h, "@");

	return !strncmp(path, h, l) && (!path[l] || path[l] == '.' || path[l] == '[');
}

/* The value at a dotted @path of @doc is true ("!path": false). */
static bool doc_true(struct json_object *doc, const char *path)
{
	char key[128];

	if (*path == '!')
		return !doc_true(doc, path + 1);
	while (*path && doc) {
		size_t l = strcspn(path, ".");

		snprintf(key, sizeof(key), "%.*s", (int)l, path);
		if (!json_object_object_get_ex(doc, key, &doc))
			return false;
		path += l + (path[l] == '.');
	}
	return json_object_get_boolean(doc);
}

/* Hidden entry @h applies to @doc: "path" always, "path@cond" when @doc's cond is true. */
static bool applies(const char *h, struct json_object *doc)
{
	const char *at = strchr(h, '@');

	return !at || doc_true(doc, at + 1);
}

/* Text may leave @path out of @doc (it may show it too, in some records or some cases). */
static bool hidden(const struct out_view *view, struct json_object *doc, const char *path)
{
	const char *const *h;

	for (h = view->hidden; h && *h; h++)
		if (below(path, *h) && applies(*h, doc))
			return true;
	return false;
}

/* Compare the fields of @doc's three renderings; mark in @seen[] the hidden entries used. */
static int check_fields(struct json_object *doc, const char *command, const struct out_view *view,
			bool *seen)
{
	struct out_fields read = { 0 }, js = { 0 }, xs = { 0 }, jx = { 0 };
	struct json_object *parsed;
	const char *const *h;
	char *buf = NULL, name[512];
	size_t len = 0, i;
	xmlDoc *x;
	xmlNode *n;
	FILE *f;
	int bad = 0;

	f = open_memstream(&buf, &len);
	replay(doc, FMT_TEXT, f, command, view, &read);
	fclose(f);
	free(buf);
	f = open_memstream(&buf, &len);
	replay(doc, FMT_JSON, f, command, view, NULL);
	fclose(f);
	parsed = json_tokener_parse(buf);
	free(buf);
	if (!parsed) {
		printf("%s: the JSON document does not parse\n", command);
		return 1;
	}
	json_object_object_del(parsed, "format_version");
	json_object_object_del(parsed, "command");
	out_leaf_paths(parsed, "", &js);
	json_object_put(parsed);
	f = open_memstream(&buf, &len);
	replay(doc, FMT_XML, f, command, view, NULL);
	fclose(f);
	x = xmlReadMemory(buf, (int)len, "render.xml", NULL, XML_PARSE_NONET);
	free(buf);
	n = x ? xmlDocGetRootElement(x) : NULL;
	for (n = n ? n->children : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, "layoutctl"))
			break;
	if (!n) {
		printf("%s: the XML document does not parse\n", command);
		xmlFreeDoc(x);
		return 1;
	}
	xml_leaves(n, "", &xs);
	xmlFreeDoc(x);
	for (i = 0; i < js.n; i++) {
		xml_name(js.v[i], name, sizeof(name));
		out_fields_add(&jx, name);
		if (!out_fields_has(&xs, name))
			bad = printf("%s: %s is in JSON, not in XML\n", command, js.v[i]);
		if (!out_fields_has(&read, js.v[i]) && !hidden(view, doc, js.v[i]))
			bad = printf("%s: %s is in JSON and XML, not in text\n", command, js.v[i]);
	}
	for (i = 0; i < xs.n; i++)
		if (!out_fields_has(&jx, xs.v[i]))
			bad = printf("%s: %s is in XML, not in JSON\n", command, xs.v[i]);
	for (i = 0; i < read.n; i++) {
		/* "$command": the document's own, not a record's */
		if (!out_fields_has(&js, read.v[i]) && strcmp(read.v[i], "command"))
			bad = printf("%s: %s is in text, not in JSON\n", command, read.v[i]);
	}
	for (h = view->hidden; h && *h; h++) {
		if (!applies(*h, doc))
			continue;
		for (i = 0; i < js.n && !below(js.v[i], *h); i++)
			;
		if (i < js.n)
			seen[h - view->hidden] = true;
	}
	out_fields_free(&read);
	out_fields_free(&js);
	out_fields_free(&xs);
	out_fields_free(&jx);
	return bad ? 1 : 0;
}

static struct json_object *load(const char *file, const struct out_view **view)
{
	struct json_object *doc = json_object_from_file(file), *c;

	if (!doc || !json_object_object_get_ex(doc, "command", &c) ||
	    !(*view = find_view(json_object_get_string(c)))) {
		error("%s: not a document of a command with a text view", file);
		json_object_put(doc);
		return NULL;
	}
	out_unescape_tree(doc);
	return doc;
}

/*
 * --check FILE...: each document's formats compared, and every hidden entry of each view
 * used by some document (a stale entry would hide a field a renderer starts to carry). Views
 * that share their hidden list (fix and drain) are checked as one.
 */
static int check_files(int n, char **files)
{
	const struct out_view *view;
	bool *seen[sizeof(views) / sizeof(views[0])] = { NULL };
	struct json_object *doc;
	size_t k, nh;
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		if (!(doc = load(files[i], &view)))
			return EXIT_CANTRUN;
		for (k = 0; views[k]->hidden != view->hidden; k++)
			;
		for (nh = 0; view->hidden && view->hidden[nh]; nh++)
			;
		if (!seen[k] && !(seen[k] = calloc(nh + 1, sizeof(bool))))
			abort();
		bad |= check_fields(doc, view->command, view, seen[k]);
		json_object_put(doc);
	}
	for (k = 0; views[k]; k++) {
		for (i = 0; check_hidden && seen[k] && views[k]->hidden && views[k]->hidden[i]; i++)
			if (!seen[k][i])
				bad = printf("%s: hidden %s is in no document's JSON\n",
					     views[k]->command, views[k]->hidden[i]);
		free(seen[k]);
	}
	return bad ? EXIT_PROBLEMS : EXIT_CLEAN;
}

int cmd_render(const struct cmd *cmd, int argc, char **argv)
{
	const struct out_view *view;
	struct json_object *doc;
	int ret;

	if ((check || check_hidden) && argc >= 2)
		return finish_stdout(check_files(argc - 1, argv + 1));
	ret = operands_check(cmd, argc, 1, "FILE");
	if (ret >= 0)
		return ret;
	if (!(doc = load(argv[1], &view)))
		return EXIT_CANTRUN;
	replay(doc, gopts.format, stdout, view->command, view, NULL);
	json_object_put(doc);
	return finish_stdout(EXIT_CLEAN);
}
