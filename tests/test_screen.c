/* test_screen.c — the four- and eight-lane screens of neighbour rows (src/screen.c).
 *
 * Each bit of screen_row and screen_row_behind (and of screen_row8 and
 * screen_row8_behind, where the processor has AVX-512F) is compared with the scalar
 * predicate the list scan used before (predict_pair_may_meet_scaled and
 * predict_pair_may_meet, on the scan's own arithmetic written out here), and
 * each time of contact with predict_pair's, bit for bit, and the nearest
 * mode's bits with the row's earliest times found from those: on
 * random rows of every length up to SCREEN_MAX, through every image, with
 * thresholds placed within a unit in the last place of c, pairs exactly
 * touching or parallel, and NaN records; in 3D, and in 2D (every z zero,
 * some velocities -0 along z) with the z terms left out. Then whole runs of dense fluids
 * with each screen and without one must give the same bits: every event's
 * time and bodies, and every body's state at the end.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "carom.h"
#include "check.h"
#include "predict.h"
#include "schedule.h"
#include "screen.h"
#include "world.h"

enum { RECORDS = 64 };

typedef struct row_case {
    body_hot hot[RECORDS];
    double shift4[27][4];
    int32_t entries[SCREEN_MAX];
    screen_body a;
} row_case;

static double uniform(carom_rng *rng, double lo, double hi) { return lo + (hi - lo) * carom_rng_uniform(rng); }

/* The scalar scan's verdict on entry e (schedule.c: free_pair_time_after),
 * and into *time the pair's absolute time of contact by predict_pair. */
static int scalar_may_meet(const row_case *rc, int32_t e, int behind, double *time)
{
    const body_hot *b = &rc->hot[e >> NEIGHBOURS_IMAGE_BITS];
    const double *shift = rc->shift4[e & ((1 << NEIGHBOURS_IMAGE_BITS) - 1)];
    const screen_body *a = &rc->a;
    double dr[3], dv[3], t = behind ? (b->t <= a->t ? a->t : b->t) : a->t, dta = t - a->t, dtb = t - b->t;
    for (int k = 0; k < 3; k++) {
        dr[k] = behind ? (b->x[k] + b->v[k] * dtb) - (a->x[k] + a->v[k] * dta) : (b->x[k] + b->v[k] * dtb) - a->x[k];
        dr[k] += shift[k];
        dv[k] = b->v[k] - a->v[k];
    }
    double radii = a->radius + b->radius;
    *time = t + predict_pair(dr, dv, radii);
    return behind ? predict_pair_may_meet(dr, dv, radii, a->horizon - t)
                  : predict_pair_may_meet_scaled(dr, dv, radii, a->scale);
}

/* Places the threshold of entry e's pair a few units in the last place from
 * its c, so that a lane rounding differently from the scalar code shows. */
static void aim_threshold(row_case *rc, int32_t e, int behind, int ulps)
{
    const body_hot *b = &rc->hot[e >> NEIGHBOURS_IMAGE_BITS];
    const double *shift = rc->shift4[e & 31];
    double dr[3], dv[3], dtb = rc->a.t - b->t;
    for (int k = 0; k < 3; k++) {
        dr[k] = ((b->x[k] + b->v[k] * dtb) - rc->a.x[k]) + shift[k];
        dv[k] = b->v[k] - rc->a.v[k];
    }
    double bb = dr[0] * dv[0] + dr[1] * dv[1] + dr[2] * dv[2], radii = rc->a.radius + b->radius;
    double c = dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2] - radii * radii;
    if (!(bb < 0.0) || !(c > 0.0)) return;
    double scale = c / bb;
    for (int k = 0; k < abs(ulps); k++) scale = nextafter(scale, ulps > 0 ? INFINITY : -INFINITY);
    if (behind) rc->a.horizon = rc->a.t + scale / (-2.0 * (1.0 + 1e-9)); /* b not ahead: t = a's time */
    else rc->a.scale = scale;
}

/* dim 2: every z zero, as in a 2D world, with -0 for the z velocity of
 * every third record and, in some cases, of a (a collision can leave one). */
static void random_case(row_case *rc, carom_rng *rng, int behind, int dim)
{
    const double side[3] = {9.0, 10.0, dim == 3 ? 11.0 : 0.0};
    for (int code = 0; code < 27; code++)
        for (int k = 0, c = code; k < 4; k++, c /= 3) rc->shift4[code][k] = k < 3 ? (c % 3 - 1) * side[k] : 0.0;
    for (int j = 0; j < RECORDS; j++) {
        body_hot *b = &rc->hot[j];
        for (int k = 0; k < 3; k++) {
            b->x[k] = uniform(rng, -1.6, 1.6);
            b->v[k] = carom_rng_normal(rng);
        }
        b->t = behind ? uniform(rng, 4.0, 6.0) : uniform(rng, 4.0, 5.0);
        b->radius = uniform(rng, 0.4, 0.5);
    }
    /* a few special records: at a's place and speed (b = 0, parallel), exactly touching, NaN */
    rc->hot[1] = (body_hot){{0.0, 0.0, 0.0}, {0.5, 0.0, 0.0}, 5.0, 0.5};
    rc->hot[2] = (body_hot){{1.0, 0.0, 0.0}, {-1.0, 0.0, 0.0}, 5.0, 0.5};
    rc->hot[3] = (body_hot){{NAN, 0.0, 0.0}, {0.0, 0.0, 0.0}, 5.0, 0.5};
    rc->hot[4] = (body_hot){{0.3, 0.2, 0.1}, {0.0, NAN, 0.0}, 4.5, 0.5};
    /* exactly touching a once both are at time 6, ahead of a's horizon (behind) */
    rc->hot[5] = (body_hot){{1.5, 0.0, 0.0}, {-1.0, 0.0, 0.0}, behind ? 6.0 : 5.0, 0.5};
    for (int m = 0; m < SCREEN_MAX; m++) {
        int32_t slot = (int32_t)(carom_rng_uniform(rng) * RECORDS), code = (int32_t)(carom_rng_uniform(rng) * 27);
        if (carom_rng_uniform(rng) < 0.6) code = 13; /* most neighbours are seen directly */
        if (carom_rng_uniform(rng) < 0.1) slot = 1 + m % 5, code = 13; /* the special records */
        rc->entries[m] = slot << NEIGHBOURS_IMAGE_BITS | code;
    }
    rc->a = (screen_body){{0.0, 0.0, 0.0}, {0.5, 0.0, 0.0}, 5.0, 0.5, 0.0, 0.0, 0.0};
    if (dim == 2) {
        for (int j = 0; j < RECORDS; j++) {
            rc->hot[j].x[2] = 0.0;
            rc->hot[j].v[2] = j % 3 == 0 ? -0.0 : 0.0;
        }
        if (carom_rng_uniform(rng) < 0.5) rc->a.v[2] = -0.0;
    }
    double horizon = carom_rng_uniform(rng) < 0.1 ? INFINITY : uniform(rng, 0.0, 0.4);
    rc->a.scale = predict_rejection_scale(horizon);
    rc->a.horizon = rc->a.t + horizon;
    rc->a.limit = carom_rng_uniform(rng) < 0.2 ? INFINITY : rc->a.t + uniform(rng, 0.0, 1.5);
}

/* The bits a nearest screen must give: the entries at the row's earliest
 * finite time, if it is no later than the limit. */
static uint32_t expected_nearest(const double *time, int count, double limit)
{
    double earliest = INFINITY;
    for (int k = 0; k < count; k++) earliest = time[k] < earliest ? time[k] : earliest;
    uint32_t mask = 0;
    for (int k = 0; k < count; k++) mask |= (uint32_t)(time[k] == earliest && earliest <= limit) << k;
    return earliest < INFINITY ? mask : 0;
}

/* The screen of rc's first count entries, in the variant for dim, behind
 * and lanes (eight: 3D only). */
static uint32_t screen(int behind, int dim, int lanes, const row_case *rc, int count, double *time, int nearest)
{
    const double(*shift4)[4] = (const double(*)[4])rc->shift4;
    if (lanes == 8)
        return behind ? screen_row8_behind(rc->hot, shift4, rc->entries, count, &rc->a, time, nearest)
                      : screen_row8(rc->hot, shift4, rc->entries, count, &rc->a, time, nearest);
    if (dim == 2)
        return behind ? screen_row_behind_2d(rc->hot, shift4, rc->entries, count, &rc->a, time, nearest)
                      : screen_row_2d(rc->hot, shift4, rc->entries, count, &rc->a, time, nearest);
    return behind ? screen_row_behind(rc->hot, shift4, rc->entries, count, &rc->a, time, nearest)
                  : screen_row(rc->hot, shift4, rc->entries, count, &rc->a, time, nearest);
}

/* Every bit of every length of each random row against the scalar verdict. */
static int compare_rows(int behind, int dim, int lanes, int cases, int *passing, int *wrong_times,
                        int *wrong_nearest, int *nearest_found)
{
    carom_rng rng = carom_rng_seed(behind ? 31 : 17);
    row_case *rc = malloc(sizeof *rc);
    int wrong = 0;
    double time[SCREEN_TIMES];
    for (int n = 0; n < cases; n++) {
        random_case(rc, &rng, behind, dim);
        if (n % 3 == 1) aim_threshold(rc, rc->entries[n % SCREEN_MAX], behind, (int)(n % 7) - 3);
        for (int count = 0; count <= SCREEN_MAX; count++) {
            for (int k = 0; k < SCREEN_TIMES; k++) time[k] = -1.0;
            uint32_t mask = screen(behind, dim, lanes, rc, count, time, 0);
            double expected_times[SCREEN_MAX];
            for (int k = 0; k < SCREEN_MAX; k++) {
                double expected_time = 0.0;
                int expected = k < count && scalar_may_meet(rc, rc->entries[k], behind, &expected_time);
                expected_times[k] = expected_time;
                wrong += (int)(mask >> k & 1u) != expected;
                /* the same bits, NaN for NaN */
                if (k < count && memcmp(&time[k], &expected_time, sizeof(double)) != 0 &&
                    !(isnan(time[k]) && isnan(expected_time)))
                    ++*wrong_times;
                if (count == SCREEN_MAX) *passing += expected;
            }
            uint32_t nearest = screen(behind, dim, lanes, rc, count, time, 1);
            *wrong_nearest += nearest != expected_nearest(expected_times, count, rc->a.limit);
            *nearest_found += count == SCREEN_MAX && nearest != 0;
        }
    }
    free(rc);
    return wrong;
}

static void test_screen_matches_scalar(void)
{
    carom_world *w = NULL;
    carom_world_def def = carom_default_world_def();
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    CHECK_EQ_INT(w->screen_lanes, screen_available());
    carom_world_destroy(w);
    CHECK(screen_supported() == 0 || screen_supported() == 4 || screen_supported() == 8);
    CHECK(screen_available() == screen_supported() || (screen_supported() == 8 && screen_available() == 4));
    if (!screen_supported()) {
        printf("  (this processor has no AVX2: the scans run the scalar screen, checked by every other test)\n");
        return;
    }
    if (screen_supported() < 8) printf("  (this processor has no AVX-512F: the eight-lane screen is not run here)\n");
    int cases = check_quick() ? 300 : 3000;
    for (int variant = 0; variant < 6; variant++) { /* 3D and 2D in four lanes, then 3D in eight */
        int behind = variant & 1, dim = variant < 2 || variant >= 4 ? 3 : 2, lanes = variant < 4 ? 4 : 8;
        if (lanes > screen_supported()) continue;
        int passing = 0, wrong_times = 0, wrong_nearest = 0, nearest_found = 0;
        int wrong = compare_rows(behind, dim, lanes, cases, &passing, &wrong_times, &wrong_nearest, &nearest_found);
        const char *where = behind ? "behind" : "at the clock";
        CHECK_MSG(wrong_nearest == 0, "%dD, %d lanes, %s: %d rows' earliest entries differ", dim, lanes, where,
                  wrong_nearest);
        CHECK_MSG(nearest_found > cases / 4 && nearest_found < cases,
                  "%d lanes, %s: an earliest entry in %d of %d full rows", lanes, where, nearest_found, cases);
        CHECK_MSG(wrong == 0, "%dD, %d lanes, %s: %d bits differ from the scalar screen", dim, lanes, where, wrong);
        CHECK_MSG(wrong_times == 0, "%dD, %d lanes, %s: %d times differ from predict_pair's", dim, lanes, where,
                  wrong_times);
        /* the cases reach both answers */
        CHECK_MSG(passing > cases && passing < cases * SCREEN_MAX / 2, "%d lanes, %s: %d of %d pass", lanes, where,
                  passing, cases * SCREEN_MAX);
    }
}

typedef struct event_log {
    carom_event *events;
    int count, capacity;
} event_log;

static int keep_event(void *user, const carom_event *e)
{
    event_log *log = user;
    if (log->count < log->capacity) log->events[log->count++] = *e;
    return 0;
}

/* 4 n^3 spheres on a jittered fcc lattice at packing eta (radii 0.5, or 0.4
 * to 0.5 when mixed), walls on y when walled; neighbour lists with shell
 * (cell lists where shell < 0). */
static carom_world *dense_world(int n, double eta, int mixed, int walled, double shell, double restitution,
                               event_log *log)
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int count = 4 * n * n * n;
    carom_rng rng = carom_rng_seed(99);
    double side = cbrt(count * 3.14159265358979323846 / 6.0 / eta), a = side / n;
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){side, walled ? side + 1.0 : side, side};
    if (walled) def.boundary[1] = CAROM_WALLS;
    def.neighbour_shell = shell;
    def.restitution = restitution; /* below 1: last partners, and the scans' full walk */
    def.on_event = keep_event;
    def.user = log;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    for (int b = 0; b < count; b++) {
        int cell = b / 4, k[3] = {cell % n, cell / n % n, cell / (n * n)};
        carom_body_def body = carom_default_body_def();
        double x[3];
        for (int d = 0; d < 3; d++)
            x[d] = -0.5 * side + (k[d] + basis[b % 4][d] + 0.25) * a + 0.05 * (carom_rng_uniform(&rng) - 0.5);
        body.position = (carom_vec){x[0], x[1], x[2]};
        body.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        body.radius = mixed ? 0.4 + 0.1 * carom_rng_uniform(&rng) : 0.5;
        CHECK(carom_world_add_body(w, &body, NULL) == CAROM_OK);
    }
    return w;
}

/* 8 spheres of radius 1.6 at (+-3, +-3, +-3) among 1,100 of radii 0.4
 * to 0.5 placed at random where they fit, in a periodic cube of side 12:
 * the large ones' rows hold more than SCREEN_MAX entries. */
static carom_world *mixture_world(event_log *log)
{
    carom_world_def def = carom_default_world_def();
    def.box = (carom_vec){12.0, 12.0, 12.0};
    def.neighbour_shell = 0.3;
    def.on_event = keep_event;
    def.user = log;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(5);
    for (int k = 0; k < 8; k++) {
        carom_body_def body = carom_default_body_def();
        body.position = (carom_vec){k & 1 ? 3.0 : -3.0, k & 2 ? 3.0 : -3.0, k & 4 ? 3.0 : -3.0};
        body.radius = 1.6;
        body.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        CHECK(carom_world_add_body(w, &body, NULL) == CAROM_OK);
    }
    for (int tries = 0; tries < 200000 && carom_world_body_count(w) < 1100; tries++) {
        carom_body_def body = carom_default_body_def();
        body.position = (carom_vec){uniform(&rng, -6.0, 6.0), uniform(&rng, -6.0, 6.0), uniform(&rng, -6.0, 6.0)};
        body.radius = uniform(&rng, 0.4, 0.5);
        body.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), carom_rng_normal(&rng)};
        (void)carom_world_add_body(w, &body, NULL); /* refused where it would overlap */
    }
    CHECK_EQ_INT(carom_world_body_count(w), 1100);
    return w;
}

/* n^2 disks of radius 0.5 on a jittered square lattice at area fraction
 * phi, in a periodic square, with world_def.neighbour_shell shell (cell
 * lists are scanned without the screen: the run must not depend on the
 * flag). */
static carom_world *disk_world(int n, double phi, double shell, event_log *log)
{
    double side = sqrt(n * n * 3.14159265358979323846 / 4.0 / phi), a = side / n;
    carom_world_def def = carom_default_world_def();
    def.dim = 2;
    def.box = (carom_vec){side, side, 0.0};
    def.neighbour_shell = shell;
    def.on_event = keep_event;
    def.user = log;
    carom_world *w = NULL;
    CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
    carom_rng rng = carom_rng_seed(11);
    for (int b = 0; b < n * n; b++) {
        carom_body_def body = carom_default_body_def();
        body.position = (carom_vec){-0.5 * side + (b % n + 0.5) * a + 0.05 * (carom_rng_uniform(&rng) - 0.5),
                                    -0.5 * side + (b / n + 0.5) * a + 0.05 * (carom_rng_uniform(&rng) - 0.5), 0.0};
        body.velocity = (carom_vec){carom_rng_normal(&rng), carom_rng_normal(&rng), 0.0};
        body.radius = 0.5;
        CHECK(carom_world_add_body(w, &body, NULL) == CAROM_OK);
    }
    return w;
}

static int same_bits(const void *a, const void *b, size_t bytes) { return memcmp(a, b, bytes) == 0; }

enum fluid { ONE_SIZE, POLYDISPERSE, MIXTURE, DISKS };

/* The collisions of a run and every body's state at its end, two runs
 * compared bit for bit; how many differ. */
static int differing_events(const event_log *a, const event_log *b)
{
    int differing = 0;
    for (int k = 0; k < a->count && k < b->count; k++) {
        const carom_event *e = &a->events[k], *f = &b->events[k];
        differing += !(e->kind == f->kind && e->i == f->i && e->j == f->j &&
                       same_bits(&e->time, &f->time, sizeof(double)));
    }
    return differing + abs(a->count - b->count);
}

static int32_t differing_states(const carom_world *a, const carom_world *b)
{
    int32_t n = carom_world_body_count(a), states_differ = 0;
    for (int32_t id = 0; id < n; id++) {
        carom_body_state p, q;
        CHECK(carom_world_get_body(a, id, &p) == CAROM_OK && carom_world_get_body(b, id, &q) == CAROM_OK);
        states_differ += !(same_bits(&p.position, &q.position, sizeof p.position) &&
                           same_bits(&p.velocity, &q.velocity, sizeof p.velocity) && p.collisions == q.collisions);
    }
    return states_differ;
}

/* One fluid run without a screen, then with each this processor has (four
 * lanes, eight): the same events and the same final states, bit for bit.
 * lists: 0, cell lists at packing 0.3; walled worlds are also inelastic. */
static void run_every_way(enum fluid fluid, int walled, int lists)
{
    enum { EVENTS = 30000, WAYS = 3 };
    static const int lanes_of[WAYS] = {0, 4, 8};
    int events = check_quick() ? EVENTS / 10 : EVENTS;
    event_log logs[WAYS];
    carom_world *w[WAYS];
    int ways = 0;
    for (int s = 0; s < WAYS && lanes_of[s] <= screen_supported(); s++, ways++) {
        logs[s] = (event_log){calloc((size_t)events, sizeof(carom_event)), 0, events};
        w[s] = fluid == DISKS     ? disk_world(24, 0.6, lists ? 0.0 : -1.0, &logs[s]) /* dense disks: lists by default */
               : fluid == MIXTURE ? mixture_world(&logs[s])
                                  : dense_world(5, lists ? 0.45 : 0.3, fluid == POLYDISPERSE, walled,
                                                lists ? 0.3 : -1.0, walled ? 0.95 : 1.0, &logs[s]);
        w[s]->screen_lanes = lanes_of[s];
        CHECK(carom_world_run(w[s], INFINITY, events) == CAROM_OK);
        CHECK_EQ_INT(w[s]->nb.on, lists);
    }
    int32_t longest = 0;
    for (int32_t i = 0; lists && i < w[0]->count; i++)
        longest = w[0]->nb.count[i] > longest ? w[0]->nb.count[i] : longest;
    CHECK_MSG(fluid != MIXTURE || longest > SCREEN_MAX, "the longest row holds %d entries", longest);
    /* the log holds the collisions among the run's events (renewals are the rest) */
    CHECK_MSG(logs[0].count > events / 2, "%d collisions in %d events", logs[0].count, events);
    for (int s = 1; s < ways; s++) {
        int differing = differing_events(&logs[0], &logs[s]);
        CHECK_MSG(differing == 0, "fluid %d walled %d lists %d, %d lanes: %d events differ", fluid, walled, lists,
                  lanes_of[s], differing);
        int32_t states_differ = differing_states(w[0], w[s]);
        CHECK_MSG(states_differ == 0, "fluid %d walled %d lists %d, %d lanes: %d of %d bodies differ", fluid, walled,
                  lists, lanes_of[s], states_differ, carom_world_body_count(w[0]));
    }
    for (int s = 0; s < ways; s++) {
        carom_world_destroy(w[s]);
        free(logs[s].events);
    }
}

static void test_runs_keep_their_bits(void)
{
    for (int lists = 0; lists <= 1; lists++) {
        run_every_way(ONE_SIZE, 0, lists);
        run_every_way(POLYDISPERSE, 0, lists);
        run_every_way(POLYDISPERSE, 1, lists);
    }
    run_every_way(MIXTURE, 0, 1);
    run_every_way(DISKS, 0, 0);
    run_every_way(DISKS, 0, 1);
}

/* A body that touches its last partner, approaching it by round-off, must
 * not meet it again at once (schedule.c: offer_pair's still_touching): its
 * next pair is the third body's, with the screen as without it, with cells
 * and with lists. Only the scan that walks every passing entry finds it;
 * one keeping the row's earliest alone would find the partner and drop it. */
static void test_last_partner_is_skipped(void)
{
    for (int lists = 0; lists <= 1; lists++)
        for (int screened = 0; screened <= screen_supported(); screened += 4) { /* scalar, four lanes, eight */
            carom_world_def def = carom_default_world_def();
            def.box = (carom_vec){20.0, 20.0, 20.0};
            def.restitution = 0.5;
            def.neighbour_shell = lists ? 0.3 : -1.0;
            carom_world *w = NULL;
            CHECK(carom_world_create(&def, &w, NULL, 0) == CAROM_OK);
            const double x[3] = {0.0, 1.0, -1.5}, v[3] = {1e-3, 0.0, 1.0};
            for (int b = 0; b < 3; b++) {
                carom_body_def body = carom_default_body_def();
                body.position = (carom_vec){x[b], 0.0, 0.0};
                body.velocity = (carom_vec){v[b], 0.0, 0.0};
                body.radius = 0.5;
                CHECK(carom_world_add_body(w, &body, NULL) == CAROM_OK);
            }
            CHECK(carom_world_run(w, 0.0, 0) == CAROM_OK); /* lists, cells and the calendar built */
            CHECK_EQ_INT(w->nb.on, lists);
            w->screen_lanes = screened;
            CHECK(w->rest.last_partner != NULL);
            if (!w->rest.last_partner) {
                carom_world_destroy(w);
                continue;
            }
            w->rest.last_partner[0] = 1;
            w->rest.last_partner[1] = 0;
            int32_t a = w->slot_of[0], c = w->slot_of[2];
            double t = schedule_prediction(w, a);
            const body_event *e = world_event(w, a);
            CHECK_MSG(e->kind == EVENT_PAIR && e->partner == c, "lists %d screened %d: kind %d partner %d at %g", lists,
                      screened, e->kind, e->partner, t);
            CHECK_MSG(fabs(t - 0.5 / (1.0 - 1e-3)) < 1e-12, "lists %d screened %d: t = %.17g", lists, screened, t);
            carom_world_destroy(w);
        }
}

int main(void)
{
    RUN(test_screen_matches_scalar);
    RUN(test_runs_keep_their_bits);
    RUN(test_last_partner_is_skipped);
    return CHECK_SUMMARY();
}
