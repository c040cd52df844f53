/* test_airhockey.c — the air-hockey game of examples/airhockey played for a
 * few simulated minutes: goals are scored, and each one is a real crossing
 * of the goal line inside the mouth (seen independently through the event
 * callback); after every control window no two bodies overlap and every body
 * is inside the table; the mallets' accelerations respect the bound whatever
 * a controller asks; the same seed gives the same game bit for bit and
 * another seed another game; four players work; bad configurations are
 * refused with a message. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "airhockey.h"
#include "carom.h"
#include "check.h"
#include "state_hash.h"

#define TOLERANCE 1e-9

/* What the test sees of the game through its own event callback. */
typedef struct watch {
    const airhockey_game *game;
    int goal_crossings[2]; /* puck crossings of each goal line towards its wall, inside the mouth */
    int bad_crossings;     /* sensor events off the line or outside the mouth */
    int64_t events;
    int goals_noticed, last_scorer;
    int serves_after_goals, serves_on_the_wrong_side;
} watch;

/* After each goal the puck is served on the conceding side. */
static void watch_notice(void *user, const airhockey_notice *n)
{
    watch *w = user;
    if (n->kind == AIRHOCKEY_GOAL) w->goals_noticed++, w->last_scorer = n->team;
    if (n->kind != AIRHOCKEY_SERVE || n->reason != AIRHOCKEY_SERVE_GOAL) return;
    w->serves_after_goals++;
    double conceding_side = w->last_scorer == 0 ? 1.0 : -1.0; /* team 1 defends x+ */
    if (!(n->position.x * conceding_side > 0.0)) w->serves_on_the_wrong_side++;
}

static int watch_event(void *user, const carom_event *e)
{
    watch *w = user;
    w->events++;
    if (e->kind != CAROM_EVENT_SENSOR) return 0;
    const airhockey_table t = airhockey_default_table();
    carom_body_state puck;
    CHECK(carom_world_get_body(airhockey_world(w->game), e->i, &puck) == CAROM_OK);
    double line = t.length / 2 - 1.5 * t.puck_radius;
    int on_line =
        fabs(fabs(puck.position.x) - line) <= 1e-12 && fabs(puck.position.y) <= t.goal_width / 2;
    if (!on_line || e->i != 0) w->bad_crossings++;
    /* towards the wall: x- for sensor 0 (team 1 scores), x+ for sensor 1 (team 0 scores) */
    if (puck.position.x < 0 && e->direction < 0) w->goal_crossings[1]++;
    if (puck.position.x > 0 && e->direction > 0) w->goal_crossings[0]++;
    return 0;
}

/* Every pair apart by at least the sum of radii, every body inside the walls. */
static int count_violations(const carom_world *world)
{
    carom_world_def def = carom_world_definition(world);
    int32_t n = carom_world_body_count(world), bad = 0;
    carom_body_state s[1 + AIRHOCKEY_MAX_MALLETS];
    for (int32_t i = 0; i < n; i++) CHECK(carom_world_get_body(world, i, &s[i]) == CAROM_OK);
    for (int32_t i = 0; i < n; i++) {
        if (fabs(s[i].position.x) > def.box.x / 2 - s[i].radius + TOLERANCE) bad++;
        if (fabs(s[i].position.y) > def.box.y / 2 - s[i].radius + TOLERANCE) bad++;
        for (int32_t j = i + 1; j < n; j++) {
            double d = hypot(s[i].position.x - s[j].position.x, s[i].position.y - s[j].position.y);
            if (d < s[i].radius + s[j].radius - TOLERANCE) bad++;
        }
    }
    return bad;
}

typedef struct outcome {
    airhockey_summary summary;
    uint64_t hash;
    int violations;
    watch seen;
    double deepest_crossing; /* how far a mallet's centre went past the centre line (m) */
} outcome;

/* Plays `seconds` window by window, checking after each window. */
static outcome play(int players, uint64_t seed, double seconds)
{
    outcome o;
    memset(&o, 0, sizeof o);
    airhockey_config c = airhockey_default_config();
    c.players = players, c.seed = seed;
    c.on_event = watch_event, c.on_notice = watch_notice, c.user = &o.seen;
    airhockey_game *game = NULL;
    char why[256] = "";
    CHECK_MSG(airhockey_create(&c, &game, why, sizeof why) == CAROM_OK, "%s", why);
    if (!game) return o;
    o.seen.game = game;
    int64_t windows = (int64_t)(seconds * c.control_rate);
    for (int64_t k = 0; k < windows; k++) {
        carom_status st = airhockey_step(game);
        CHECK_MSG(st == CAROM_OK, "window %lld: %s", (long long)k, airhockey_message(game));
        if (st != CAROM_OK) break;
        o.violations += count_violations(airhockey_world(game));
        for (int m = 0; m < players; m++) {
            carom_body_state s;
            CHECK(carom_world_get_body(airhockey_world(game), 1 + m, &s) == CAROM_OK);
            double past = (m < players / 2 ? 1.0 : -1.0) * s.position.x; /* team 0 lives at x < 0 */
            if (past > o.deepest_crossing) o.deepest_crossing = past;
        }
    }
    o.summary = airhockey_get_summary(game);
    o.hash = hash_bodies(FNV1A_OFFSET, airhockey_world(game), 1);
    o.hash = fnv1a(o.hash, &o.summary.events, sizeof o.summary.events);
    o.hash = fnv1a(o.hash, o.summary.score, sizeof o.summary.score);
    airhockey_destroy(game);
    return o;
}

static void test_two_players_score_without_overlap(void)
{
    outcome o = play(2, 1, 180.0);
    int goals = o.summary.score[0] + o.summary.score[1];
    printf("  2 players, 3 min: %d - %d, %lld windows, %lld pair, %lld wall events, fastest puck "
           "%.3g m/s, "
           "%lld jams, %lld stall restarts, deepest crossing %.3g m\n",
           o.summary.score[0], o.summary.score[1], (long long)o.summary.windows,
           (long long)o.summary.pair_events, (long long)o.summary.wall_events,
           o.summary.fastest_puck, (long long)o.summary.jams, (long long)o.summary.stall_restarts,
           o.deepest_crossing);
    CHECK_EQ_INT(o.summary.windows, 9000);
    CHECK_EQ_INT(o.violations, 0);
    CHECK(o.summary.score[0] > 0 && o.summary.score[1] > 0);
    /* every goal the game counted is a crossing of the line inside the mouth, and vice versa */
    CHECK_EQ_INT(o.seen.goal_crossings[0], o.summary.score[0]);
    CHECK_EQ_INT(o.seen.goal_crossings[1], o.summary.score[1]);
    CHECK_EQ_INT(o.seen.bad_crossings, 0);
    CHECK_EQ_INT(o.seen.goals_noticed, goals);
    CHECK_EQ_INT(o.seen.serves_after_goals, goals);
    CHECK_EQ_INT(o.seen.serves_on_the_wrong_side, 0);
    /* the scripted mallets brake before the centre line (their centres aim to stay a radius and
     * 1 cm short of it; a hit may push one a little further) */
    CHECK(o.deepest_crossing <= 0.01);
    CHECK(o.summary.puck_hits > goals);
    CHECK(o.summary.fastest_puck > 0.0 && o.summary.fastest_puck < 20.0);
    CHECK_EQ_INT(o.seen.events,
                 o.summary.pair_events + o.summary.wall_events + o.summary.sensor_events);
}

/* Seed 7, 2 players, 60 s: the hash of the final states, events and score.
 * Re-recorded (was 0x00564f02cb702937) when serve directions stopped using
 * cos and sin, so that the page's wasm build plays the same games. */
#define RECORDED_GAME_HASH UINT64_C(0x6178c9229959c474)

static void test_same_seed_same_game(void)
{
    outcome a = play(2, 7, 60.0), b = play(2, 7, 60.0), c = play(2, 8, 60.0);
    CHECK(a.hash == b.hash);
    /* and the same bits as recorded (the issue asks for a fixed hash): if a
     * change to the engine or the controller alters games on purpose, record
     * the new value and say why in the commit */
    CHECK_MSG(a.hash == RECORDED_GAME_HASH, "game hash 0x%016llx, recorded 0x%016llx",
              (unsigned long long)a.hash, (unsigned long long)RECORDED_GAME_HASH);
    CHECK_EQ_INT(a.summary.events, b.summary.events);
    CHECK_EQ_INT(a.summary.predictions, b.summary.predictions);
    CHECK(a.summary.fastest_puck == b.summary.fastest_puck);
    CHECK(a.hash != c.hash);
    CHECK(a.summary.events != c.summary.events || a.summary.fastest_puck != c.summary.fastest_puck);
}

static void test_four_players(void)
{
    outcome o = play(4, 3, 120.0);
    printf("  4 players, 2 min: %d - %d, %lld pair, %lld wall events, fastest puck %.3g m/s, %lld "
           "jams, "
           "deepest crossing %.3g m\n",
           o.summary.score[0], o.summary.score[1], (long long)o.summary.pair_events,
           (long long)o.summary.wall_events, o.summary.fastest_puck, (long long)o.summary.jams,
           o.deepest_crossing);
    CHECK_EQ_INT(o.violations, 0);
    CHECK(o.summary.score[0] + o.summary.score[1] > 0);
    CHECK_EQ_INT(o.seen.goal_crossings[0] + o.seen.goal_crossings[1],
                 o.summary.score[0] + o.summary.score[1]);
    CHECK_EQ_INT(o.seen.bad_crossings, 0);
    CHECK_EQ_INT(o.seen.serves_on_the_wrong_side, 0);
    CHECK(o.deepest_crossing <= 0.01);
}

/* A controller that asks for far too much, and for nonsense. */
static void greedy_controller(void *user, const airhockey_view *view, carom_vec *acceleration)
{
    (void)user;
    for (int k = 0; k < view->mallets; k++)
        acceleration[k] = k == 0 ? (carom_vec){NAN, 1.0, 0.0} : (carom_vec){3e6, -4e6, 7.0};
}

static void test_accelerations_are_bounded(void)
{
    airhockey_config c = airhockey_default_config();
    c.controller = greedy_controller;
    airhockey_game *game = NULL;
    CHECK(airhockey_create(&c, &game, NULL, 0) == CAROM_OK);
    if (!game) return;
    CHECK(airhockey_step(game) == CAROM_OK);
    carom_body_state nonsense, greedy;
    CHECK(carom_world_get_body(airhockey_world(game), 1, &nonsense) == CAROM_OK);
    CHECK(carom_world_get_body(airhockey_world(game), 2, &greedy) == CAROM_OK);
    CHECK(nonsense.acceleration.x == 0.0 && nonsense.acceleration.y == 0.0);
    CHECK_NEAR(hypot(greedy.acceleration.x, greedy.acceleration.y), c.max_acceleration, 1e-12);
    CHECK_NEAR(greedy.acceleration.x / greedy.acceleration.y, -0.75, 1e-12); /* direction kept */
    CHECK(greedy.acceleration.z == 0.0);
    airhockey_destroy(game);
}

static void test_bad_configurations(void)
{
    airhockey_game *game = (airhockey_game *)&game;
    char why[256] = "";
    airhockey_config c = airhockey_default_config();
    c.players = 3;
    CHECK(airhockey_create(&c, &game, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK(game == NULL);
    CHECK(strstr(why, "players") != NULL);
    c = airhockey_default_config();
    c.max_acceleration = NAN;
    CHECK(airhockey_create(&c, &game, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK(strstr(why, "max_acceleration") != NULL);
    c = airhockey_default_config();
    c.table.restitution = 1.5;
    CHECK(airhockey_create(&c, &game, why, sizeof why) == CAROM_INVALID_ARGUMENT);
    CHECK(strstr(why, "restitution") != NULL);
}

int main(void)
{
    RUN(test_two_players_score_without_overlap);
    RUN(test_same_seed_same_game);
    RUN(test_four_players);
    RUN(test_accelerations_are_bounded);
    RUN(test_bad_configurations);
    return CHECK_SUMMARY();
}
