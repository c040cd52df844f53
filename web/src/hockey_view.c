/* hockey_view.c — the air-hockey game of the time-windows issue, played on
 * the page (hockey_view.h).
 *
 * The game (examples/airhockey) runs every control window exactly with
 * carom_world_advance; its controller here is the scripted one for the
 * agent (team 1) and, for the player's mallet (team 0), a chase of the
 * pointer: the velocity that reaches the target and can still stop there,
 * v = min(v_max, sqrt(2 b a_max d)) towards it (the braking distance
 * v^2 / 2 b a_max, seed 003), reached within one window, the acceleration
 * clamped to a_max by the game.
 */
#include "hockey_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "airhockey.h"
#include "controller.h"
#include "web_export.h"

static const double chase_speed = 3.0, chase_braking = 0.6;

struct hockey_view {
    airhockey_game *game;
    double target_x, target_y;
    double counters[HOCKEY_COUNTERS];
    float bodies[9];
    int status;
    char message[256];
};

static carom_vec chase(const hockey_view *v, const airhockey_view *view, const carom_body_state *mallet)
{
    double dx = v->target_x - mallet->position.x, dy = v->target_y - mallet->position.y;
    double d = sqrt(dx * dx + dy * dy);
    double speed = fmin(chase_speed, sqrt(2.0 * chase_braking * view->max_acceleration * d));
    double wx = d > 0.0 ? speed * dx / d : 0.0, wy = d > 0.0 ? speed * dy / d : 0.0;
    return (carom_vec){(wx - mallet->velocity.x) / view->window, (wy - mallet->velocity.y) / view->window, 0.0};
}

static void control(void *user, const airhockey_view *view, carom_vec *acceleration)
{
    const hockey_view *v = user;
    airhockey_scripted_controller(NULL, view, acceleration);
    acceleration[0] = chase(v, view, &view->mallet[0]);
}

hockey_view *WEB_EXPORT(hockey_create)(uint32_t seed)
{
    hockey_view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    airhockey_config config = airhockey_default_config();
    config.seed = seed;
    config.controller = control, config.controller_user = v;
    const airhockey_table *t = &config.table;
    v->target_x = -0.35 * t->length, v->target_y = 0.0;
    v->counters[HOCKEY_LENGTH] = t->length, v->counters[HOCKEY_WIDTH] = t->width;
    v->counters[HOCKEY_GOAL_WIDTH] = t->goal_width;
    carom_status s = airhockey_create(&config, &v->game, v->message, sizeof v->message);
    v->status = (int)s;
    if (s == CAROM_OK) hockey_advance(v, 0.0, 0);
    return v;
}

int WEB_EXPORT(hockey_status)(const hockey_view *v) { return v->status; }
const char *WEB_EXPORT(hockey_message)(const hockey_view *v) { return v->message; }
const double *WEB_EXPORT(hockey_counters)(const hockey_view *v) { return v->counters; }

void WEB_EXPORT(hockey_set_target)(hockey_view *v, double x, double y)
{
    if (v->status != 0 || !isfinite(x) || !isfinite(y)) return;
    const airhockey_table *t = &airhockey_get_config(v->game)->table;
    double reach_x = 0.5 * t->length - t->mallet_radius, reach_y = 0.5 * t->width - t->mallet_radius;
    v->target_x = fmin(fmax(x, -reach_x), -t->mallet_radius);
    v->target_y = fmin(fmax(y, -reach_y), reach_y);
}

static void read_game(hockey_view *v)
{
    airhockey_summary s = airhockey_get_summary(v->game);
    double *c = v->counters;
    c[HOCKEY_TIME] = s.time;
    c[HOCKEY_SCORE_PLAYER] = s.score[0], c[HOCKEY_SCORE_AGENT] = s.score[1];
    c[HOCKEY_OVER] = s.score[0] >= HOCKEY_WINNING_SCORE || s.score[1] >= HOCKEY_WINNING_SCORE;
    c[HOCKEY_PUCK_HITS] = (double)s.puck_hits, c[HOCKEY_FASTEST_PUCK] = s.fastest_puck;
}

int WEB_EXPORT(hockey_advance)(hockey_view *v, double t, int32_t max_windows)
{
    if (v->status != 0) return v->status;
    for (int32_t w = 0; w < max_windows && !v->counters[HOCKEY_OVER] && v->counters[HOCKEY_TIME] < t; w++) {
        carom_status s = airhockey_step(v->game);
        if (s != CAROM_OK) {
            v->status = (int)s;
            snprintf(v->message, sizeof v->message, "%s", airhockey_message(v->game));
            return v->status;
        }
        read_game(v);
    }
    read_game(v);
    return 0;
}

const float *WEB_EXPORT(hockey_bodies)(hockey_view *v)
{
    if (v->status != 0 && !v->game) return NULL;
    const carom_world *world = airhockey_world(v->game);
    for (int32_t k = 0; k < 3; k++) {
        carom_body_state b;
        carom_world_get_body(world, k, &b);
        v->bodies[3 * k] = (float)b.position.x, v->bodies[3 * k + 1] = (float)b.position.y;
        v->bodies[3 * k + 2] = (float)b.radius;
    }
    return v->bodies;
}

void WEB_EXPORT(hockey_destroy)(hockey_view *v)
{
    if (!v) return;
    airhockey_destroy(v->game);
    free(v);
}
