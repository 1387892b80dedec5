
/*
 * Go's sort.SliceStable for the strategic merge patch (see
 * gcp_patch_strategic_int.h): upstream orders list elements with a
 * less() that is not a strict order, so the result depends on every step
 * of Go's algorithm (insertion sort by blocks, symMerge, rotate), which
 * are reproduced here.
 */

#include "gcp_patch_strategic_int.h"


/* the less() of upstream normalizeSliceOrder(), not a strict order */
#define gcp_smp_less(x, y)                                                    \
    (((x)->idx >= 0 && (y)->idx >= 0) ? (x)->idx < (y)->idx : 1)


static void
gcp_smp_swap(gcp_smp_item_t *d, long i, long j)
{
    gcp_smp_item_t  t;

    t = d[i];
    d[i] = d[j];
    d[j] = t;
}


static void
gcp_smp_insertion_sort(gcp_smp_item_t *d, long a, long b)
{
    long  i, j;

    for (i = a + 1; i < b; i++) {
        for (j = i; j > a && gcp_smp_less(&d[j], &d[j - 1]); j--) {
            gcp_smp_swap(d, j, j - 1);
        }
    }
}


static void
gcp_smp_swap_range(gcp_smp_item_t *d, long a, long b, long n)
{
    long  i;

    for (i = 0; i < n; i++) {
        gcp_smp_swap(d, a + i, b + i);
    }
}


static void
gcp_smp_rotate(gcp_smp_item_t *d, long a, long m, long b)
{
    long  i, j;

    i = m - a;
    j = b - m;

    while (i != j) {
        if (i > j) {
            gcp_smp_swap_range(d, m - i, m, j);
            i -= j;

        } else {
            gcp_smp_swap_range(d, m - i, m + j - i, i);
            j -= i;
        }
    }

    gcp_smp_swap_range(d, m - i, m, i);
}


static void
gcp_smp_sym_merge(gcp_smp_item_t *d, long a, long m, long b)
{
    long  i, j, h, k, mid, n, start, r, p, c, end;

    if (m - a == 1) {
        i = m;
        j = b;

        while (i < j) {
            h = (long) ((unsigned long) (i + j) >> 1);

            if (gcp_smp_less(&d[h], &d[a])) {
                i = h + 1;

            } else {
                j = h;
            }
        }

        for (k = a; k < i - 1; k++) {
            gcp_smp_swap(d, k, k + 1);
        }

        return;
    }

    if (b - m == 1) {
        i = a;
        j = m;

        while (i < j) {
            h = (long) ((unsigned long) (i + j) >> 1);

            if (!gcp_smp_less(&d[m], &d[h])) {
                i = h + 1;

            } else {
                j = h;
            }
        }

        for (k = m; k > i; k--) {
            gcp_smp_swap(d, k, k - 1);
        }

        return;
    }

    mid = (long) ((unsigned long) (a + b) >> 1);
    n = mid + m;

    if (m > mid) {
        start = n - b;
        r = mid;

    } else {
        start = a;
        r = m;
    }

    p = n - 1;

    while (start < r) {
        c = (long) ((unsigned long) (start + r) >> 1);

        if (!gcp_smp_less(&d[p - c], &d[c])) {
            start = c + 1;

        } else {
            r = c;
        }
    }

    end = n - start;

    if (start < m && m < end) {
        gcp_smp_rotate(d, start, m, end);
    }

    if (a < start && start < mid) {
        gcp_smp_sym_merge(d, a, start, mid);
    }

    if (mid < end && end < b) {
        gcp_smp_sym_merge(d, mid, end, b);
    }
}


/* Go's sort.SliceStable: insertion sort by blocks of 20, then symMerge. */
void
gcp_smp_stable(gcp_smp_item_t *d, long n)
{
    long  a, b, m, block;

    block = 20;
    a = 0;
    b = block;

    while (b <= n) {
        gcp_smp_insertion_sort(d, a, b);
        a = b;
        b += block;
    }

    gcp_smp_insertion_sort(d, a, n);

    while (block < n) {
        a = 0;
        b = 2 * block;

        while (b <= n) {
            gcp_smp_sym_merge(d, a, a + block, b);
            a = b;
            b += 2 * block;
        }

        m = a + block;
        if (m < n) {
            gcp_smp_sym_merge(d, a, m, n);
        }

        block *= 2;
    }
}
