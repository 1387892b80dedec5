
/*
 * The debug dumps of the dispatcher (see gcp_apf_shm.h), as upstream's
 * /debug/api_priority_and_fairness/dump_* print them: rows of cells
 * joined by ",\t" through Go's text/tabwriter (minimum width 8, padding 1,
 * spaces), levels by name.  The region is copied under its lock, and
 * printed from the copy.
 */

#include <stdlib.h>
#include <time.h>

#include "gcp_apf_int.h"
#include "gcp_json.h"


#define GCP_APF_TAB_MIN   8
#define GCP_APF_TAB_PAD   1
#define GCP_APF_MAX_COLS  18


typedef struct {
    gcp_arena_t   *arena;
    const char  ***rows;        /* each NULL-terminated */
    size_t         n;
    size_t         cap;
} gcp_apf_tab_t;


static void
gcp_apf_tab_add(gcp_apf_tab_t *t, const char **cells, size_t ncells)
{
    size_t         cap;
    const char  ***rows, **row;

    if (t->n == t->cap) {
        cap = t->cap ? t->cap * 2 : 64;
        rows = gcp_alloc(t->arena, cap * sizeof(const char **));

        if (rows == NULL) {
            return;
        }

        if (t->n) {
            memcpy(rows, t->rows, t->n * sizeof(const char **));
        }

        t->rows = rows;
        t->cap = cap;
    }

    row = gcp_alloc(t->arena, (ncells + 1) * sizeof(const char *));
    if (row == NULL) {
        return;
    }

    memcpy(row, cells, ncells * sizeof(const char *));
    row[ncells] = NULL;
    t->rows[t->n++] = row;
}


/* Characters (runes) of UTF-8 text, as tabwriter measures cells. */
static size_t
gcp_apf_runes(const char *s)
{
    size_t  n;

    for (n = 0; *s; s++) {
        n += ((unsigned char) *s & 0xc0) != 0x80;
    }

    return n;
}


/*
 * Writes the rows: every cell but a row's last is a column, padded to the
 * column's widest cell plus one, at least 8 (the rows of a dump all have
 * the same cells, so every column spans every row).
 */
static void
gcp_apf_tab_write(gcp_apf_tab_t *t, gcp_buf_t *b)
{
    size_t  i, j, w, width[GCP_APF_MAX_COLS];

    memset(width, 0, sizeof(width));

    for (i = 0; i < t->n; i++) {
        for (j = 0; t->rows[i][j] && t->rows[i][j + 1]; j++) {
            w = gcp_apf_runes(t->rows[i][j]) + GCP_APF_TAB_PAD;
            w = gcp_max(w, GCP_APF_TAB_MIN);

            if (j < GCP_APF_MAX_COLS && w > width[j]) {
                width[j] = w;
            }
        }
    }

    for (i = 0; i < t->n; i++) {
        for (j = 0; t->rows[i][j]; j++) {
            gcp_buf_addstr(b, t->rows[i][j]);

            if (t->rows[i][j + 1] == NULL || j >= GCP_APF_MAX_COLS) {
                continue;
            }

            for (w = gcp_apf_runes(t->rows[i][j]); w < width[j]; w++) {
                gcp_buf_addc(b, ' ');
            }
        }

        gcp_buf_addc(b, '\n');
    }
}


/* The cells of a row: each but the last ends with a comma. */
static void
gcp_apf_row(gcp_apf_tab_t *t, const char **cells, size_t n)
{
    size_t       i;
    const char  *with[GCP_APF_MAX_COLS + 1];

    for (i = 0; i < n && i <= GCP_APF_MAX_COLS; i++) {
        with[i] = i + 1 < n ? gcp_sprintf(t->arena, "%s,", cells[i])
                            : cells[i];

        if (with[i] == NULL) {
            return;
        }
    }

    gcp_apf_tab_add(t, with, i);
}


static const char *
gcp_apf_num(gcp_arena_t *a, int64_t v)
{
    return gcp_sprintf(a, "%lld", (long long) v);
}


/* Go's time.Time.Format(time.RFC3339Nano) in UTC; 0 is the zero time. */
static const char *
gcp_apf_nano(gcp_arena_t *a, int64_t ns)
{
    char       buf[64], frac[16];
    int        i;
    time_t     sec;
    struct tm  tm;

    if (ns <= 0) {
        return "0001-01-01T00:00:00Z";
    }

    sec = (time_t) (ns / 1000000000LL);
    gmtime_r(&sec, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);

    snprintf(frac, sizeof(frac), ".%09lld", (long long) (ns % 1000000000LL));

    for (i = 9; i > 0 && frac[i] == '0'; i--) {
        frac[i] = '\0';
    }

    return gcp_sprintf(a, "%s%sZ", buf, i > 0 ? frac : "");
}


/* a copy of the region */

typedef struct {
    gcp_apf_level_t  *levels;
    gcp_apf_queue_t  *queues;
    gcp_apf_rec_t    *recs;
    int32_t           nrecords;
    int               order[GCP_APF_MAX_LEVELS];
    int               nlevels;
} gcp_apf_copy_t;


static gcp_apf_copy_t  *gcp_apf_sort_base;


static int
gcp_apf_level_cmp(const void *a, const void *b)
{
    return strcmp(gcp_apf_sort_base->levels[*(const int *) a].name,
                  gcp_apf_sort_base->levels[*(const int *) b].name);
}


static int
gcp_apf_snapshot(gcp_apf_shm_t *sh, gcp_arena_t *a, gcp_apf_copy_t *c,
    int queues, int recs)
{
    int  i;

    memset(c, 0, sizeof(gcp_apf_copy_t));

    c->levels = gcp_alloc(a, sizeof(sh->levels));
    c->queues = queues ? gcp_alloc(a, sh->nrecords * sizeof(gcp_apf_queue_t))
                       : NULL;
    c->recs = recs ? gcp_alloc(a, sh->nrecords * sizeof(gcp_apf_rec_t))
                   : NULL;

    if (c->levels == NULL || (queues && c->queues == NULL)
        || (recs && c->recs == NULL))
    {
        return GCP_ENOMEM;
    }

    gcp_apf_lock(sh);

    c->nrecords = sh->nrecords;
    memcpy(c->levels, sh->levels, sizeof(sh->levels));

    if (queues) {
        memcpy(c->queues, gcp_apf_queues(sh),
               sh->nrecords * sizeof(gcp_apf_queue_t));
    }

    if (recs) {
        memcpy(c->recs, gcp_apf_recs(sh),
               sh->nrecords * sizeof(gcp_apf_rec_t));
    }

    gcp_apf_unlock(sh);

    for (i = 0; i < GCP_APF_MAX_LEVELS; i++) {
        if (c->levels[i].used) {
            c->order[c->nlevels++] = i;
        }
    }

    /* the lock is not held: the dumps are formatted by one thread */
    gcp_apf_sort_base = c;
    qsort(c->order, c->nlevels, sizeof(int), gcp_apf_level_cmp);
    gcp_apf_sort_base = NULL;

    return GCP_OK;
}


void
gcp_apf_shm_dump_levels(gcp_apf_shm_t *sh, gcp_buf_t *b)
{
    int                i, q, active;
    gcp_apf_tab_t      t;
    gcp_apf_copy_t     c;
    gcp_apf_level_t   *l;
    const char        *cells[10];

    static const char  *headers[10] = {
        "PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing",
        "WaitingRequests", "ExecutingRequests", "DispatchedRequests",
        "RejectedRequests", "TimedoutRequests", "CancelledRequests"
    };

    memset(&t, 0, sizeof(t));
    t.arena = b->arena;

    if (gcp_apf_snapshot(sh, b->arena, &c, 1, 0) != GCP_OK) {
        b->failed = 1;
        return;
    }

    gcp_apf_row(&t, headers, 10);

    for (i = 0; i < c.nlevels; i++) {
        l = &c.levels[c.order[i]];

        /* queues with requests waiting */
        active = 0;

        for (q = l->waiting_queues; q != GCP_APF_NONE;
             q = c.queues[q].wnext)
        {
            active++;
        }

        cells[0] = l->name;
        cells[1] = gcp_apf_num(b->arena, active);
        cells[2] = l->waiting == 0 && l->executing == 0 ? "true" : "false";
        cells[3] = l->quiescing ? "true" : "false";
        cells[4] = gcp_apf_num(b->arena, l->waiting);
        cells[5] = gcp_apf_num(b->arena, l->executing);
        cells[6] = gcp_apf_num(b->arena, (int64_t) l->dispatched);
        cells[7] = gcp_apf_num(b->arena, (int64_t) l->rejected);
        cells[8] = gcp_apf_num(b->arena, (int64_t) l->timed_out);
        cells[9] = gcp_apf_num(b->arena, (int64_t) l->cancelled);

        gcp_apf_row(&t, cells, 10);
    }

    gcp_apf_tab_write(&t, b);
}


/*
 * The queue slots of level li by queue index (NONE: the queue holds
 * nothing), an arena array of the level's queues entries, or NULL.
 */
static int32_t *
gcp_apf_copy_queues(gcp_apf_copy_t *c, gcp_arena_t *a, int li)
{
    int32_t   q, *slot;
    int32_t   nq = c->levels[li].queues;

    slot = gcp_alloc(a, gcp_max(nq, 1) * sizeof(int32_t));
    if (slot == NULL) {
        return NULL;
    }

    for (q = 0; q < nq; q++) {
        slot[q] = GCP_APF_NONE;
    }

    for (q = 0; q < c->nrecords; q++) {
        if (c->queues[q].level == li && c->queues[q].index < nq) {
            slot[c->queues[q].index] = q;
        }
    }

    return slot;
}


void
gcp_apf_shm_dump_queues(gcp_apf_shm_t *sh, gcp_buf_t *b)
{
    int                i, li;
    int32_t            qi, *slot;
    gcp_apf_tab_t      t;
    gcp_apf_copy_t     c;
    gcp_apf_level_t   *l;
    gcp_apf_queue_t   *queue, empty;
    const char        *cells[9];

    static const char  *headers[9] = {
        "PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests",
        "SeatsInUse", "NextDispatchR", "InitialSeatsSum", "MaxSeatsSum",
        "TotalWorkSum"
    };

    memset(&t, 0, sizeof(t));
    memset(&empty, 0, sizeof(empty));
    t.arena = b->arena;

    if (gcp_apf_snapshot(sh, b->arena, &c, 1, 0) != GCP_OK) {
        b->failed = 1;
        return;
    }

    gcp_apf_row(&t, headers, 9);

    for (i = 0; i < c.nlevels; i++) {
        li = c.order[i];
        l = &c.levels[li];

        if (l->queues == 0) {
            continue;
        }

        slot = gcp_apf_copy_queues(&c, b->arena, li);
        if (slot == NULL) {
            b->failed = 1;
            return;
        }

        for (qi = 0; qi < l->queues; qi++) {
            queue = slot[qi] == GCP_APF_NONE ? &empty : &c.queues[slot[qi]];

            cells[0] = l->name;
            cells[1] = gcp_apf_num(b->arena, qi);
            cells[2] = gcp_apf_num(b->arena, queue->waiting);
            cells[3] = gcp_apf_num(b->arena, queue->executing);
            cells[4] = gcp_apf_num(b->arena, queue->seats_in_use);
            cells[5] = gcp_sprintf(b->arena, "%.8fss", queue->next_r);
            cells[6] = gcp_apf_num(b->arena, queue->seats_waiting);
            cells[7] = gcp_apf_num(b->arena, queue->seats_waiting);
            cells[8] = gcp_sprintf(b->arena, "%.8fss", queue->work_waiting);

            gcp_apf_row(&t, cells, 9);
        }
    }

    gcp_apf_tab_write(&t, b);
}


/* schema.GroupVersion.String() of "group/version" or "version" text */
static const char *
gcp_apf_gv(const char *gv)
{
    return gv[0] == '/' ? gv + 1 : gv;
}


static void
gcp_apf_dump_request(gcp_apf_tab_t *t, const gcp_apf_level_t *l,
    const gcp_apf_rec_t *r, int32_t qi, int32_t ri, int details)
{
    size_t        n;
    const char   *cells[18];
    gcp_arena_t  *a = t->arena;

    cells[0] = l->name;
    cells[1] = r->flow_schema;
    cells[2] = gcp_apf_num(a, qi);
    cells[3] = gcp_apf_num(a, ri);
    cells[4] = r->distinguisher;
    cells[5] = gcp_apf_nano(a, r->arrive_wall);
    cells[6] = gcp_apf_num(a, r->seats);
    cells[7] = "0";
    cells[8] = "0s";
    cells[9] = gcp_apf_nano(a, r->start_wall);
    n = 10;

    if (details) {
        cells[10] = r->user;
        cells[11] = r->verb;
        cells[12] = r->path;
        cells[13] = r->ns;
        cells[14] = r->name;
        cells[15] = gcp_apf_gv(r->api_version);
        cells[16] = r->resource;
        cells[17] = r->subresource;
        n = 18;
    }

    gcp_apf_row(t, cells, n);
}


void
gcp_apf_shm_dump_requests(gcp_apf_shm_t *sh, gcp_buf_t *b, int details)
{
    int                i, li;
    int32_t            q, r, ri, *slot, *queue_of;
    gcp_apf_tab_t      t;
    gcp_apf_copy_t     c;
    gcp_apf_rec_t     *rec;
    gcp_apf_level_t   *l;

    static const char  *headers[18] = {
        "PriorityLevelName", "FlowSchemaName", "QueueIndex",
        "RequestIndexInQueue", "FlowDistingsher", "ArriveTime",
        "InitialSeats", "FinalSeats", "AdditionalLatency", "StartTime",
        "UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion",
        "Resource", "SubResource"
    };

    memset(&t, 0, sizeof(t));
    t.arena = b->arena;

    if (gcp_apf_snapshot(sh, b->arena, &c, 1, 1) != GCP_OK) {
        b->failed = 1;
        return;
    }

    gcp_apf_row(&t, headers, details ? 18 : 10);

    /* the executing records of each queue slot, chained by their next */

    queue_of = gcp_alloc(b->arena, c.nrecords * sizeof(int32_t));
    if (queue_of == NULL) {
        b->failed = 1;
        return;
    }

    for (q = 0; q < c.nrecords; q++) {
        queue_of[q] = GCP_APF_NONE;
    }

    for (r = c.nrecords - 1; r >= 0; r--) {
        rec = &c.recs[r];

        if (rec->state == GCP_APF_REC_EXECUTING && rec->queue != GCP_APF_NONE)
        {
            rec->next = queue_of[rec->queue];
            queue_of[rec->queue] = r;
        }
    }

    for (i = 0; i < c.nlevels; i++) {
        li = c.order[i];
        l = &c.levels[li];

        /* queued requests by queue index, then those executing */

        slot = gcp_apf_copy_queues(&c, b->arena, li);
        if (slot == NULL) {
            b->failed = 1;
            return;
        }

        for (q = 0; q < l->queues; q++) {
            if (slot[q] == GCP_APF_NONE) {
                continue;
            }

            for (r = c.queues[slot[q]].head, ri = 0; r != GCP_APF_NONE;
                 r = c.recs[r].next, ri++)
            {
                gcp_apf_dump_request(&t, l, &c.recs[r], q, ri, details);
            }

            for (r = queue_of[slot[q]]; r != GCP_APF_NONE;
                 r = c.recs[r].next)
            {
                gcp_apf_dump_request(&t, l, &c.recs[r], q, -1, details);
            }
        }

        for (r = 0; r < c.nrecords; r++) {
            rec = &c.recs[r];

            if (rec->state == GCP_APF_REC_EXECUTING && rec->level == li
                && rec->queue == GCP_APF_NONE)
            {
                gcp_apf_dump_request(&t, l, rec, -1, -1, details);
            }
        }
    }

    gcp_apf_tab_write(&t, b);
}
