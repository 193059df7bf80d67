/*
 * suppress.c - ACLSIM_SUPPRESS: reports a program knows about, silenced
 * (valgrind's idea: a kind plus the frames of a stack).
 *
 * The file holds one rule a line; '#' starts a comment, blank lines are
 * skipped:
 *     kind [frame ...]
 * kind is a report's kind (cross-stream-reuse, leak, ...) or a pattern
 * (fnmatch(3): `*` is every kind). The frames, if any, name consecutive
 * frames of one of the report's stacks from its innermost frame outside
 * aclsim (the first line of the stack as printed): each is a pattern
 * matched against the frame's function, its "file:line" and its file (base
 * names), or its object file; `...` stands for any number of frames. A
 * report a rule names is neither printed, written nor counted.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "diag.h"
#include "internal.h"
#include "base/mem.h"

#define RULE_FRAMES 16
#define LINE_MAX_ 1024

struct rule {
    char *kind;
    int n;
    char *frame[RULE_FRAMES];
};

static struct rule *rules;
static size_t n_rules;

static void free_rule(struct rule *r)
{
    base_free(r->kind);
    for (int j = 0; j < r->n; j++)
        base_free(r->frame[j]);
}

static void free_rules(struct rule *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free_rule(&v[i]);
    base_free(v);
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = base_malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static bool known_kind(const char *k)
{
    if (strpbrk(k, "*?["))
        return true;
    for (int i = 0; i < API_REP_KIND_COUNT; i++)
        if (strcmp(k, api_rep_kind_name((enum api_rep_kind)i)) == 0)
            return true;
    return false;
}

/* One line's rule into r (r->kind NULL: the line holds none). */
static int parse_line(char *text, struct rule *r, int lineno, char *err, size_t len)
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    *r = (struct rule){NULL, 0, {NULL}};
    for (char *save = NULL, *w = strtok_r(text, " \t\r\n", &save); w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        if (!r->kind) {
            if (!known_kind(w)) {
                int at = snprintf(err, len, "line %d: unknown report kind '%s' (kinds:", lineno, w);
                for (int i = 0; i < API_REP_KIND_COUNT && at > 0 && (size_t)at < len; i++)
                    at += snprintf(err + at, len - (size_t)at, "%s %s", i ? "," : "",
                                   api_rep_kind_name((enum api_rep_kind)i));
                if (at > 0 && (size_t)at < len)
                    snprintf(err + at, len - (size_t)at, ", or a pattern such as *)");
                return -1;
            }
            if (!(r->kind = dup(w)))
                goto oom;
        } else if (r->n == RULE_FRAMES) {
            snprintf(err, len, "line %d: more than %d frames in one rule", lineno, RULE_FRAMES);
            return -1;
        } else if (!(r->frame[r->n++] = dup(w))) {
            goto oom;
        }
    }
    return 0;
oom:
    snprintf(err, len, "line %d: out of host memory", lineno);
    return -1;
}

int rep_suppress_load(const char *path, char *err, size_t len)
{
    struct rule *v = NULL;
    size_t n = 0, cap = 0;
    FILE *f = path ? fopen(path, "r") : NULL;
    if (path && !f) {
        snprintf(err, len, "the file cannot be read (%s)", strerror(errno));
        return -1;
    }
    char text[LINE_MAX_];
    int rc = 0;
    for (int lineno = 1; f && fgets(text, sizeof text, f); lineno++) {
        if (!strchr(text, '\n') && !feof(f)) {
            snprintf(err, len, "line %d: longer than %d characters", lineno, LINE_MAX_ - 2);
            rc = -1;
            break;
        }
        struct rule r;
        if ((rc = parse_line(text, &r, lineno, err, len)) != 0) {
            free_rule(&r);
            break;
        }
        if (!r.kind)
            continue;
        if (n == cap) {
            struct rule *g = base_realloc(v, (cap = cap ? cap * 2 : 8) * sizeof *v);
            if (!g) {
                free_rule(&r);
                snprintf(err, len, "line %d: out of host memory", lineno);
                rc = -1;
                break;
            }
            v = g;
        }
        v[n++] = r;
    }
    if (f)
        fclose(f);
    if (rc != 0) {
        free_rules(v, n);
        return -1;
    }
    free_rules(rules, n_rules);
    rules = v;
    n_rules = n;
    return 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static bool frame_matches(const char *pat, const struct base_frame *f)
{
    char at[300];
    snprintf(at, sizeof at, "%s:%d", base_name(f->file), f->line);
    return (f->function[0] && fnmatch(pat, f->function, 0) == 0) ||
           (f->file[0] && (fnmatch(pat, at, 0) == 0 || fnmatch(pat, base_name(f->file), 0) == 0)) ||
           (f->module[0] && fnmatch(pat, f->module, 0) == 0);
}

/* Do the rule's frames from i on match the stack's frames from j on? */
static bool frames_match(const struct rule *r, int i, const struct rep_stack *s, int j)
{
    if (i == r->n)
        return true;
    if (strcmp(r->frame[i], "...") == 0)
        return frames_match(r, i + 1, s, j) || (j < s->n && frames_match(r, i, s, j + 1));
    return j < s->n && frame_matches(r->frame[i], &s->f[j]) && frames_match(r, i + 1, s, j + 1);
}

bool rep_suppressed(const char *kind, const struct rep_stack *stacks, int n)
{
    for (size_t i = 0; i < n_rules; i++) {
        const struct rule *r = &rules[i];
        if (fnmatch(r->kind, kind, 0) != 0)
            continue;
        if (r->n == 0)
            return true;
        for (int k = 0; k < n; k++)
            if (frames_match(r, 0, &stacks[k], 0))
                return true;
    }
    return false;
}

void rep_suppress_free(void)
{
    free_rules(rules, n_rules);
    rules = NULL;
    n_rules = 0;
}
