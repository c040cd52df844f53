/* impact.c — frame stepping with seed 004's time of collision: step every
 * body to the end of the frame, find the overlaps there (contact.c), trace
 * each back by bisection on the overlap predicate (bisect.c) to a time
 * within eps before its first contact, apply the earliest there (the
 * impulse law of collide.c), and simulate the remainder of the frame for
 * the bodies it changed: "of course, there might be more collisions in
 * this remaining interval". Bodies carry their own time stamps inside a
 * frame, so a collision moves only its two bodies, and a pending contact is
 * dropped when one of its bodies has collided since it was found (counters,
 * as in the exact engine). Contacts are only found as overlaps at the frame
 * end: a pair that passes right through another within one frame, or
 * grazes it between two frame ends, is still missed.
 */
#include "impact.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "bisect.h"
#include "contact.h"
#include "memory.h"

/* ---- pending contacts, earliest first (a binary heap) --------------------- */

static int earlier(const impact_candidate *a, const impact_candidate *b)
{
    if (a->t != b->t) return a->t < b->t;
    if (a->i != b->i) return a->i < b->i;
    return a->j < b->j;
}

static void swap(impact_candidate *a, impact_candidate *b)
{
    impact_candidate c = *a;
    *a = *b;
    *b = c;
}

static int heap_push(carom_frame *f, impact_candidate c)
{
    if (f->heap_count == f->heap_capacity) {
        if (f->heap_capacity > INT32_MAX / 2) return -1;
        int32_t capacity = f->heap_capacity ? 2 * f->heap_capacity : 64;
        impact_candidate *grown = memory_grow(&f->world.allocator, f->heap, (size_t)f->heap_capacity * sizeof *grown,
                                        memory_bytes((size_t)capacity, sizeof *grown));
        if (!grown) return -1;
        f->heap = grown;
        f->heap_capacity = capacity;
    }
    int32_t k = f->heap_count++;
    f->heap[k] = c;
    while (k > 0 && earlier(&f->heap[k], &f->heap[(k - 1) / 2])) {
        swap(&f->heap[k], &f->heap[(k - 1) / 2]);
        k = (k - 1) / 2;
    }
    return 0;
}

static impact_candidate heap_pop(carom_frame *f)
{
    impact_candidate top = f->heap[0];
    f->heap[0] = f->heap[--f->heap_count];
    for (int32_t k = 0;;) {
        int32_t least = k, l = 2 * k + 1, r = l + 1;
        if (l < f->heap_count && earlier(&f->heap[l], &f->heap[least])) least = l;
        if (r < f->heap_count && earlier(&f->heap[r], &f->heap[least])) least = r;
        if (least == k) break;
        swap(&f->heap[k], &f->heap[least]);
        k = least;
    }
    return top;
}

/* ---- the overlap predicates, as functions of time ------------------------ */

typedef struct contact_query {
    carom_frame *f;
    int32_t i, j; /* j: the partner, or -1 - wall */
} contact_query;

static int intersect_at(void *user, double time)
{
    const contact_query *q = user;
    double xi[3], vi[3];
    frame_state_at(q->f, q->i, time, xi, vi);
    if (q->j < 0) return frame_wall_depth(q->f, q->i, xi, -1 - q->j) > 0.0;
    double xj[3], vj[3], dr[3];
    frame_state_at(q->f, q->j, time, xj, vj);
    frame_separation(q->f, xi, xj, dr);
    for (int a = 0; a < 3; a++) xj[a] = xi[a] + dr[a];
    return contact_overlap(q->f, q->i, q->j, xi, xj, time);
}

static double frame_eps(const carom_frame *f, double t0, double t1)
{
    return f->def.eps > 0.0 ? f->def.eps : ldexp(t1 - t0, -20);
}

/* Bisects the contact of i with j (or a wall) over [the later stamp, t1]
 * and queues it. */
static int queue_contact(carom_frame *f, int32_t i, int32_t j, double t1, double eps)
{
    double from = j >= 0 && f->t[j] > f->t[i] ? f->t[j] : f->t[i];
    contact_query q = {f, i, j};
    double t = bisect_first_contact(intersect_at, &q, from, t1, eps, &f->stats.bisection_steps);
    impact_candidate c = {t, i, j, f->collisions[i], j >= 0 ? f->collisions[j] : 0};
    return heap_push(f, c);
}

/* Queues every contact found at t1 among all bodies (bodies == NULL) or for
 * the n listed ones. */
static int queue_contacts(carom_frame *f, const int32_t *bodies, int32_t n, double t1, double eps)
{
    int32_t listed = bodies ? n : f->count;
    for (int32_t k = 0; k < listed; k++) {
        int32_t i = bodies ? bodies[k] : k;
        for (int wall = 0; wall < 2 * f->dim; wall++)
            if (!f->periodic[wall / 2] && frame_wall_depth(f, i, &f->end[3 * i], wall) > 0.0 &&
                queue_contact(f, i, -1 - wall, t1, eps) != 0)
                return -1;
    }
    int32_t pairs = contact_find_pairs(f, bodies, n, t1);
    if (pairs < 0) return -1;
    for (int32_t k = 0; k < pairs; k++)
        if (queue_contact(f, f->pairs[k].i, f->pairs[k].j, t1, eps) != 0) return -1;
    return 0;
}

static void set_end(carom_frame *f, int32_t i, double t1)
{
    double v[3];
    frame_state_at(f, i, t1, &f->end[3 * i], v);
    frame_wrap(f, &f->end[3 * i]);
}

/* Applies a pending contact at its time. Returns 1 if an impulse changed
 * its bodies. */
static int apply(carom_frame *f, const impact_candidate *c)
{
    frame_advance_body(f, c->i, c->t);
    if (c->j < 0) return frame_collide_wall(f, c->i, -1 - c->j, c->t);
    frame_advance_body(f, c->j, c->t);
    double dr[3];
    frame_separation(f, &f->x[3 * c->i], &f->x[3 * c->j], dr);
    return frame_collide_pair(f, c->i, c->j, dr, c->t, 1);
}

/* After an impulse: the changed bodies' new flights to t1 are searched
 * again, unless a body has had too many collisions in this frame. */
static int follow_up(carom_frame *f, const impact_candidate *c, double t1, double eps, carom_status *st)
{
    int32_t bodies[2], n = 0;
    int32_t involved[2] = {c->i, c->j};
    for (int k = 0; k < (c->j >= 0 ? 2 : 1); k++) {
        int32_t b = involved[k];
        set_end(f, b, t1);
        contact_rebin(f, b);
        if (++f->in_frame[b] == (uint32_t)f->def.max_passes + 1) {
            frame_report_jam(f, c->t, b, "had more collisions in one frame than max_passes");
            *st = CAROM_JAMMED;
        }
        if (f->in_frame[b] <= (uint32_t)f->def.max_passes) bodies[n++] = b;
    }
    return queue_contacts(f, bodies, n, t1, eps);
}

carom_status impact_frame(carom_frame *f, double t1)
{
    double eps = frame_eps(f, frame_clock(f), t1);
    for (int32_t i = 0; i < f->count; i++) {
        f->in_frame[i] = 0;
        set_end(f, i, t1);
    }
    contact_bin(f);
    f->heap_count = 0;
    carom_status st = CAROM_OK;
    if (queue_contacts(f, NULL, 0, t1, eps) != 0) return CAROM_OUT_OF_MEMORY;
    while (f->heap_count > 0) {
        impact_candidate c = heap_pop(f);
        int stale = c.counter_i != f->collisions[c.i] || (c.j >= 0 && c.counter_j != f->collisions[c.j]);
        if (stale || !apply(f, &c)) continue;
        if (follow_up(f, &c, t1, eps, &st) != 0) return CAROM_OUT_OF_MEMORY;
    }
    for (int32_t i = 0; i < f->count; i++) {
        frame_advance_body(f, i, t1);
        frame_wrap(f, &f->x[3 * i]);
    }
    return st;
}

/* ---- seed 004's search on its own (carom_time_of_impact) ----------------- */

typedef struct pair_flight {
    carom_body_state a, b;
    double g[3];
    carom_overlap_fn overlap;
    void *user;
} pair_flight;

static carom_body_state flown(const carom_body_state *s, const double g[3], double time)
{
    carom_body_state out = *s;
    double *x[3] = {&out.position.x, &out.position.y, &out.position.z};
    double *v[3] = {&out.velocity.x, &out.velocity.y, &out.velocity.z};
    for (int a = 0; a < 3; a++) {
        *x[a] += *v[a] * time + 0.5 * g[a] * time * time;
        *v[a] += g[a] * time;
    }
    return out;
}

static int flights_intersect(void *user, double time)
{
    const pair_flight *p = user;
    carom_body_state a = flown(&p->a, p->g, time), b = flown(&p->b, p->g, time);
    if (p->overlap) return p->overlap(p->user, &a, &b) != 0;
    double dx = b.position.x - a.position.x, dy = b.position.y - a.position.y, dz = b.position.z - a.position.z;
    double sigma = a.radius + b.radius;
    return dx * dx + dy * dy + dz * dz < sigma * sigma;
}

carom_status carom_time_of_impact(const carom_body_state *a, const carom_body_state *b, carom_vec gravity,
                                  double dt, double eps, carom_overlap_fn overlap, void *user, double *toi,
                                  int *steps)
{
    if (!a || !b || !toi || !(isfinite(dt) && dt >= 0.0) || !(isfinite(eps) && eps > 0.0))
        return CAROM_INVALID_ARGUMENT;
    pair_flight p = {*a, *b, {gravity.x, gravity.y, gravity.z}, overlap, user};
    int64_t count = 1;
    if (flights_intersect(&p, 0.0)) *toi = 0.0;
    else if (!flights_intersect(&p, dt)) count++, *toi = INFINITY;
    else *toi = bisect_first_contact(flights_intersect, &p, 0.0, dt, eps, &count);
    if (steps) *steps = (int)count;
    return CAROM_OK;
}
