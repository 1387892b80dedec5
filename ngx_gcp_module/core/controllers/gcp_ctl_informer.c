
/*
 * The controllers' list and watch of every object (see
 * gcp_ctl_informer.h).
 */

#include <stdlib.h>

#include "gcp_continue.h"
#include "gcp_ctl_informer.h"


#define GCP_CTL_PAGE         500
#define GCP_CTL_RELIST_MS    100
#define GCP_CTL_RETRY_LIST   1000
#define GCP_CTL_EVENT_ARENA  1024


struct gcp_ctl_informer_s {
    gcp_ctl_t           *ctl;
    gcp_store_watch_t   *watch;
    gcp_loop_timer_t    *timer;

    gcp_arena_t         *page;          /* of the page in flight */
    char                *next_key;      /* malloc'd: where the next page */
                                        /* starts; NULL: the first */
    size_t               next_len;
    int64_t              revision;      /* of the list */
    unsigned             listed:1;      /* a list completed once */
    unsigned             busy:1;        /* a page in flight */
    unsigned             stopped:1;
};


static const gcp_str_t  gcp_ctl_prefix = gcp_string("/registry/");


/* What the run watches: every object, or only its own (the CRDs). */

static gcp_str_t
gcp_ctl_informer_prefix(gcp_ctl_informer_t *inf)
{
    gcp_str_t  p;

    if (inf->ctl->conf->prefix == NULL) {
        return gcp_ctl_prefix;
    }

    p.data = inf->ctl->conf->prefix;
    p.len = strlen(p.data);

    return p;
}


static void gcp_ctl_informer_page(void *arg);
static void gcp_ctl_informer_relist(void *arg);


static void
gcp_ctl_informer_later(gcp_ctl_informer_t *inf, uint64_t ms,
    gcp_loop_timer_pt handler)
{
    gcp_loop_t  *loop = inf->ctl->loop;

    if (inf->timer) {
        loop->timer_del(loop, inf->timer);
    }

    inf->timer = loop->timer_add(loop, ms, handler, inf);
}


static void
gcp_ctl_informer_emit(gcp_ctl_informer_t *inf, gcp_ctl_ev_type_t type,
    const gcp_kv_t *kv, const gcp_kv_t *prev, int64_t revision)
{
    gcp_arena_t            *a;
    gcp_ctl_event_t         ev;
    const gcp_resource_t   *res;

    a = gcp_arena_create(GCP_CTL_EVENT_ARENA);
    if (a == NULL) {
        return;
    }

    memset(&ev, 0, sizeof(ev));

    res = gcp_ctl_key_resource(inf->ctl, kv->key, a, &ev.ns, &ev.name);

    if (res) {
        ev.type = type;
        ev.res = res;
        ev.key = gcp_strndup(a, kv->key.data, kv->key.len);
        ev.revision = revision;
        ev.arena = a;

        if (type == GCP_CTL_EV_DELETE) {
            if (prev) {
                ev.value = prev->value;
            }

        } else {
            ev.value = kv->value;

            if (prev) {
                ev.prev = prev->value;
            }
        }

        if (ev.key) {
            gcp_ctl_dispatch(inf->ctl, &ev);
        }
    }

    gcp_arena_destroy(a);
}


static int
gcp_ctl_informer_event(void *arg, const gcp_store_event_t *ev)
{
    gcp_ctl_informer_t  *inf = arg;

    switch (ev->type) {

    case GCP_STORE_EVENT_PUT:
        gcp_ctl_informer_emit(inf, GCP_CTL_EV_PUT, &ev->kv,
                              ev->has_prev ? &ev->prev_kv : NULL,
                              ev->revision);
        break;

    case GCP_STORE_EVENT_DELETE:
        gcp_ctl_informer_emit(inf, GCP_CTL_EV_DELETE, &ev->kv,
                              ev->has_prev ? &ev->prev_kv : NULL,
                              ev->revision);
        break;

    case GCP_STORE_EVENT_ERROR:
        /* the watch is over (and released by the backend): list again */
        inf->watch = NULL;

        if (!inf->stopped) {
            gcp_ctl_informer_later(inf, GCP_CTL_RELIST_MS,
                                   gcp_ctl_informer_relist);
        }

        break;

    default:
        break;
    }

    return GCP_OK;
}


static void
gcp_ctl_informer_watch(gcp_ctl_informer_t *inf)
{
    gcp_arena_t  *a;
    gcp_str_t     end;

    a = gcp_arena_create(0);
    if (a == NULL) {
        gcp_ctl_informer_later(inf, GCP_CTL_RETRY_LIST,
                               gcp_ctl_informer_relist);
        return;
    }

    end = gcp_store_prefix_end(a, gcp_ctl_informer_prefix(inf));

    inf->watch = gcp_store_watch(inf->ctl->store,
                                 gcp_ctl_informer_prefix(inf), end,
                                 inf->revision, gcp_ctl_informer_event, inf);
    gcp_arena_destroy(a);

    if (inf->watch == NULL) {
        gcp_ctl_informer_later(inf, GCP_CTL_RETRY_LIST,
                               gcp_ctl_informer_relist);
    }
}


static void
gcp_ctl_informer_listed(void *arg, gcp_store_result_t *res)
{
    size_t               i;
    gcp_ctl_informer_t  *inf = arg;
    gcp_ctl_t           *ctl = inf->ctl;
    gcp_kv_t            *last;

    inf->busy = 0;

    if (inf->stopped) {
        gcp_arena_destroy(inf->page);
        inf->page = NULL;
        gcp_ctl_unref(ctl);
        return;
    }

    if (res->rc != GCP_OK) {
        /* e.g. compacted between two pages: start over */
        free(inf->next_key);
        inf->next_key = NULL;
        gcp_ctl_informer_later(inf, GCP_CTL_RETRY_LIST,
                               gcp_ctl_informer_relist);
        goto done;
    }

    if (inf->next_key == NULL) {
        inf->revision = res->revision;

        if (inf->listed) {
            gcp_ctl_dispatch_relist(ctl);
        }
    }

    for (i = 0; i < res->nkvs; i++) {
        gcp_ctl_informer_emit(inf, GCP_CTL_EV_SYNC, &res->kvs[i], NULL,
                              res->kvs[i].mod_revision);
    }

    free(inf->next_key);
    inf->next_key = NULL;

    if (res->more && res->nkvs) {
        /* the next page starts right after the last key */

        last = &res->kvs[res->nkvs - 1];

        inf->next_key = malloc(last->key.len + 2);
        if (inf->next_key == NULL) {
            gcp_ctl_informer_later(inf, GCP_CTL_RETRY_LIST,
                                   gcp_ctl_informer_relist);
            goto done;
        }

        memcpy(inf->next_key, last->key.data, last->key.len);
        inf->next_key[last->key.len] = GCP_CONTINUE_NEXT;
        inf->next_key[last->key.len + 1] = '\0';
        inf->next_len = last->key.len + 1;

        gcp_ctl_informer_later(inf, 0, gcp_ctl_informer_page);
        goto done;
    }

    inf->listed = 1;
    gcp_ctl_informer_watch(inf);
    gcp_ctl_dispatch_synced(ctl);

done:

    gcp_arena_destroy(inf->page);
    inf->page = NULL;
    gcp_ctl_unref(ctl);
}


static void
gcp_ctl_informer_page(void *arg)
{
    gcp_str_t            start, end;
    gcp_ctl_informer_t  *inf = arg;

    inf->timer = NULL;

    if (inf->stopped || inf->busy) {
        return;
    }

    inf->page = gcp_arena_create(0);
    if (inf->page == NULL) {
        gcp_ctl_informer_later(inf, GCP_CTL_RETRY_LIST,
                               gcp_ctl_informer_relist);
        return;
    }

    if (inf->next_key) {
        start.data = inf->next_key;
        start.len = inf->next_len;      /* the last key and a NUL */

    } else {
        start = gcp_ctl_informer_prefix(inf);
    }

    end = gcp_store_prefix_end(inf->page, gcp_ctl_informer_prefix(inf));

    inf->busy = 1;
    gcp_ctl_ref(inf->ctl);

    gcp_store_range(inf->ctl->store, start, end,
                    inf->next_key ? inf->revision : 0, GCP_CTL_PAGE, 0,
                    inf->page, gcp_ctl_informer_listed, inf);
}


static void
gcp_ctl_informer_relist(void *arg)
{
    gcp_ctl_informer_t  *inf = arg;

    inf->timer = NULL;

    if (inf->watch) {
        gcp_store_watch_cancel(inf->ctl->store, inf->watch);
        inf->watch = NULL;
    }

    free(inf->next_key);
    inf->next_key = NULL;

    gcp_ctl_informer_page(inf);
}


gcp_ctl_informer_t *
gcp_ctl_informer_start(gcp_ctl_t *ctl)
{
    gcp_ctl_informer_t  *inf;

    inf = calloc(1, sizeof(gcp_ctl_informer_t));
    if (inf == NULL) {
        return NULL;
    }

    inf->ctl = ctl;

    gcp_ctl_informer_later(inf, 0, gcp_ctl_informer_page);

    if (inf->timer == NULL) {
        free(inf);
        return NULL;
    }

    return inf;
}


void
gcp_ctl_informer_stop(gcp_ctl_informer_t *inf)
{
    gcp_loop_t  *loop;

    if (inf == NULL || inf->stopped) {
        return;
    }

    inf->stopped = 1;
    loop = inf->ctl->loop;

    if (inf->timer) {
        loop->timer_del(loop, inf->timer);
        inf->timer = NULL;
    }

    if (inf->watch) {
        gcp_store_watch_cancel(inf->ctl->store, inf->watch);
        inf->watch = NULL;
    }
}


void
gcp_ctl_informer_free(gcp_ctl_informer_t *inf)
{
    if (inf == NULL) {
        return;
    }

    gcp_ctl_informer_stop(inf);
    free(inf->next_key);
    free(inf);
}


const gcp_resource_t *
gcp_ctl_key_resource(gcp_ctl_t *ctl, gcp_str_t key, gcp_arena_t *a,
    const char **ns, const char **name)
{
    size_t                  i, slen, rlen;
    const char             *rest, *slash;
    const gcp_resource_t   *res;
    const gcp_registry_t   *reg = ctl->api->registry;

    if (key.len <= gcp_ctl_prefix.len
        || memcmp(key.data, gcp_ctl_prefix.data, gcp_ctl_prefix.len) != 0)
    {
        return NULL;
    }

    for (i = 0; i < reg->n; i++) {
        res = reg->resources[i];
        slen = strlen(res->storage);

        if (key.len < gcp_ctl_prefix.len + slen + 2
            || memcmp(key.data + gcp_ctl_prefix.len, res->storage, slen)
               != 0
            || key.data[gcp_ctl_prefix.len + slen] != '/')
        {
            continue;
        }

        rest = key.data + gcp_ctl_prefix.len + slen + 1;
        rlen = key.len - gcp_ctl_prefix.len - slen - 1;
        slash = memchr(rest, '/', rlen);

        if (!res->namespaced) {
            if (slash) {
                continue;
            }

            *ns = "";
            *name = gcp_strndup(a, rest, rlen);

        } else {
            if (slash == NULL || slash == rest || slash == rest + rlen - 1
                || memchr(slash + 1, '/', rest + rlen - slash - 1))
            {
                continue;
            }

            *ns = gcp_strndup(a, rest, (size_t) (slash - rest));
            *name = gcp_strndup(a, slash + 1, rest + rlen - slash - 1);
        }

        return *ns && *name ? res : NULL;
    }

    return NULL;
}
