/* airhockey.h — an air-hockey game on carom's public API: the table, the
 * game state, goals and scoring (airhockey.c), and the controller interface
 * the mallets are steered through. A scripted controller is in
 * controller.h/.c; replace it with your own by setting
 * airhockey_config.controller.
 *
 * The table is the one of the robot-learning Air Hockey Challenge (Liu et
 * al., "Safe Reinforcement Learning of Dynamic High-Dimensional Robotic
 * Tasks", 2023; its simulator steps at 1000 Hz for control at 50 Hz): a
 * 1.948 x 1.038 m playing surface, goal mouths 0.25 m wide in each end
 * wall, a puck of radius 0.03165 m and mallets of radius 0.04815 m. Here
 * the game is 2D and exact: carom finds every puck, mallet and wall
 * collision at its exact time, so nothing tunnels whatever the speeds, and
 * the controller only acts between windows (carom_world_advance).
 *
 * The puck flies freely (an air table: no friction). The mallets are free
 * bodies of finite mass whose controller sets a bounded acceleration
 * (|a| <= max_acceleration, clamped here whatever a controller asks) at
 * the start of every control window; a puck that hits a mallet pushes it.
 * Team 0 defends the goal at x = -length/2, team 1 the one at +length/2.
 *
 * A goal is a sensor across each goal mouth, 1.5 puck radii inside the end
 * wall (carom's box has full walls, so the puck's centre crosses the
 * sensor before the puck touches the end wall there). When the puck's
 * centre crosses it inside the mouth, towards the wall, the window stops at
 * that instant (the event callback returns non-zero), the goal is counted,
 * the puck is served again on the conceding side, and the window goes on.
 *
 * Everything random (the serves) comes from one carom_rng seeded by the
 * configuration, so the same seed gives the same game bit for bit.
 */
#ifndef AIRHOCKEY_H
#define AIRHOCKEY_H

#include <stddef.h>
#include <stdint.h>

#include "carom.h"

#define AIRHOCKEY_MAX_MALLETS 4

/* The table and what is on it (SI units: m, kg, s). */
typedef struct airhockey_table {
    double length, width;              /* playing surface, x and y (m) */
    double goal_width;                 /* each goal mouth, centred on y = 0 (m) */
    double puck_radius, mallet_radius; /* m */
    double puck_mass, mallet_mass;     /* kg */
    /* carom has one restitution for every pair (puck-mallet, mallet-mallet)
     * and one for every wall. */
    double restitution, wall_restitution;
} airhockey_table;

/* The Air Hockey Challenge's table; masses and restitutions are this
 * example's choice: puck 0.015 kg, mallets 0.2 kg, restitution 0.9 on
 * mallets and walls. */
airhockey_table airhockey_default_table(void);

/* What a controller sees at the start of a window: the states of the
 * puck and the mallets at the world's clock, and the rules. */
typedef struct airhockey_view {
    const airhockey_table *table;
    double time;                     /* the world's clock (s) */
    double window;                   /* length of the window about to run (s) */
    double max_acceleration;         /* |a| a mallet may have (m/s^2) */
    int mallets;                     /* 2 or 4 */
    int team[AIRHOCKEY_MAX_MALLETS]; /* 0 defends x = -length/2, 1 defends x = +length/2 */
    int role[AIRHOCKEY_MAX_MALLETS]; /* the mallet in its team: 0, or 1 (4 players) */
    int players_per_team;            /* 1 or 2 */
    carom_body_state puck;
    carom_body_state mallet[AIRHOCKEY_MAX_MALLETS];
} airhockey_view;

/* A controller: writes the acceleration each mallet should have during the
 * coming window into acceleration[0 .. view->mallets - 1]. The game clamps
 * each vector to max_acceleration (keeping its direction) and replaces a
 * non-finite one by 0. user is airhockey_config.controller_user. */
typedef void (*airhockey_controller)(void *user, const airhockey_view *view,
                                     carom_vec *acceleration);

/* What the game does besides carom's events, for logs and displays. */
typedef enum airhockey_notice_kind {
    AIRHOCKEY_GOAL = 0, /* team scored; score holds the new score */
    AIRHOCKEY_SERVE = 1 /* the puck was put at position with velocity (why: see reason) */
} airhockey_notice_kind;

typedef enum airhockey_serve_reason {
    AIRHOCKEY_SERVE_START = 0, /* the first serve, from the centre */
    AIRHOCKEY_SERVE_GOAL = 1,  /* after a goal, on the conceding side */
    AIRHOCKEY_SERVE_STALL = 2, /* no serve for stall_time: again from the centre */
    AIRHOCKEY_SERVE_JAM = 3    /* carom stopped with CAROM_JAMMED: again from the centre */
} airhockey_serve_reason;

typedef struct airhockey_notice {
    airhockey_notice_kind kind;
    double time;
    int team;                      /* goal: the team that scored */
    int score[2];                  /* goal: the score after it */
    airhockey_serve_reason reason; /* serve */
    carom_vec position, velocity;  /* serve: the puck's new state */
} airhockey_notice;

typedef void (*airhockey_notice_callback)(void *user, const airhockey_notice *notice);

typedef struct airhockey_config {
    airhockey_table table;
    int players;             /* 2 or 4 mallets */
    uint64_t seed;           /* the serves */
    double control_rate;     /* windows per second (Hz), > 0 */
    double max_acceleration; /* bound on each mallet's acceleration (m/s^2), > 0 */
    double serve_speed;      /* a serve's speed is drawn in [serve_speed / 2, serve_speed] (m/s) */
    /* With no serve for this long (s), the puck is served again from the
     * centre (a referee's restart after a stalled rally); <= 0: never. */
    double stall_time;
    airhockey_controller controller; /* NULL: airhockey_scripted_controller */
    void *controller_user;           /* NULL with the scripted one: its defaults */
    /* Optional: sees every event of the world (pairs, walls, sensors), as
     * carom hands it to the game; its return value is ignored. */
    carom_event_callback on_event;
    /* Optional: told of every goal and serve (the first one is made by
     * airhockey_create). */
    airhockey_notice_callback on_notice;
    void *user; /* passed to on_event and on_notice */
} airhockey_config;

/* 2 players, seed 1, 50 Hz, 20 m/s^2, serves up to 1.5 m/s, stall_time 15 s,
 * the scripted controller. */
airhockey_config airhockey_default_config(void);

/* What the game counted. */
typedef struct airhockey_summary {
    double time;     /* simulated time played (s) */
    int64_t windows; /* control windows run */
    int score[2];    /* goals scored by team 0 and team 1 */
    int64_t serves;  /* serves after the first: goals and stall restarts */
    int64_t stall_restarts;
    int64_t jams; /* windows carom stopped with CAROM_JAMMED (the puck was then served again) */
    int64_t pair_events, wall_events, sensor_events, events;
    int64_t puck_hits;     /* puck-mallet collisions */
    int64_t predictions;   /* carom_stats.predictions */
    double fastest_puck;   /* the largest puck speed the game saw (m/s): after every puck event */
    double last_goal_time; /* time of the latest goal (s), NAN before the first */
    int last_goal_team;    /* the team that scored it, -1 before the first */
} airhockey_summary;

typedef struct airhockey_game airhockey_game;

/* Builds the table, the puck (body 0, served from the centre) and the
 * mallets (bodies 1..players, team 0 first), and the two goal sensors
 * (sensor 0 in front of team 0's goal, 1 in front of team 1's). On bad
 * configuration returns CAROM_INVALID_ARGUMENT (or what carom returned)
 * with a reason in why; *game is then NULL. */
carom_status airhockey_create(const airhockey_config *config, airhockey_game **game, char *why,
                              size_t why_size);
void airhockey_destroy(airhockey_game *game);

/* One control window: the controller's accelerations (clamped), then
 * carom_world_advance to the window's end, with goals scored and the puck
 * served again inside it. Returns CAROM_OK, or carom's status with a
 * message in airhockey_message. */
carom_status airhockey_step(airhockey_game *game);

/* Windows until the clock reaches `seconds` of play (rounded up to a whole
 * window). Stops at the first failure. */
carom_status airhockey_play(airhockey_game *game, double seconds);

airhockey_summary airhockey_get_summary(const airhockey_game *game);
const carom_world *airhockey_world(const airhockey_game *game);
const airhockey_config *airhockey_get_config(const airhockey_game *game);
/* The message of the last failure ("" if none). */
const char *airhockey_message(const airhockey_game *game);

#endif
