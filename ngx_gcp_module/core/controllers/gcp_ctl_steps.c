
/*
 * The step runner of the controllers' syncs (gcp_ctl_int.h): a step that
 * completes at once calls back in here and only asks for another round,
 * so that the stack does not grow with the number of steps.  The running
 * loop learns from a cleanup of the sync's arena that a step ended the
 * sync, and then no longer touches the runner.
 */

#include "gcp_ctl_int.h"


static void
gcp_ctl_steps_gone(void *data)
{
    gcp_ctl_steps_t  *s = data;

    if (s->alive) {
        *s->alive = 0;
    }
}


int
gcp_ctl_steps_init(gcp_ctl_steps_t *s, gcp_arena_t *a, size_t n,
    gcp_ctl_step_pt step, gcp_ctl_step_pt last, void *data)
{
    s->next = 0;
    s->n = n;
    s->step = step;
    s->last = last;
    s->data = data;
    s->alive = NULL;
    s->again = 0;

    return gcp_arena_cleanup(a, gcp_ctl_steps_gone, s);
}


void
gcp_ctl_steps_run(gcp_ctl_steps_t *s)
{
    int  alive;

    if (s->alive) {
        s->again = 1;
        return;
    }

    alive = 1;
    s->alive = &alive;

    do {
        s->again = 0;

        if (s->next == s->n) {
            /* the last step: the sync ends in there */
            s->alive = NULL;
            s->last(s->data);
            return;
        }

        s->step(s->data);

        if (!alive) {
            /* the step ended the sync */
            return;
        }

    } while (s->again);

    s->alive = NULL;
}


void
gcp_ctl_steps_start(gcp_ctl_steps_t *s, gcp_ctl_item_t *item, size_t n,
    gcp_ctl_step_pt step, gcp_ctl_step_pt last, void *data)
{
    if (gcp_ctl_steps_init(s, item->arena, n, step, last, data) != GCP_OK) {
        gcp_ctl_queue_done(item, GCP_ENOMEM, 0);
        return;
    }

    gcp_ctl_steps_run(s);
}
