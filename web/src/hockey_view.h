/* hockey_view.h — air hockey on the page (hockey_view.c): the player's
 * mallet (team 0, the left goal) against the scripted controller
 * (examples/airhockey), first to seven goals. */
#ifndef HOCKEY_VIEW_H
#define HOCKEY_VIEW_H
#include <stdint.h>

typedef struct hockey_view hockey_view;

enum { HOCKEY_WINNING_SCORE = 7 };

/* What hockey_counters returns, by index. */
enum hockey_counter {
    HOCKEY_TIME = 0,
    HOCKEY_SCORE_PLAYER,   /* goals of team 0 (the player) */
    HOCKEY_SCORE_AGENT,    /* goals of team 1 (the scripted agent) */
    HOCKEY_OVER,           /* 1 once a side has HOCKEY_WINNING_SCORE */
    HOCKEY_PUCK_HITS,
    HOCKEY_FASTEST_PUCK,   /* m/s */
    HOCKEY_LENGTH, HOCKEY_WIDTH, HOCKEY_GOAL_WIDTH, /* the table (m) */
    HOCKEY_COUNTERS
};

hockey_view *hockey_create(uint32_t seed);
int hockey_status(const hockey_view *view);
const char *hockey_message(const hockey_view *view);
/* Where the player wants the mallet (table metres, origin at the centre);
 * the target is kept inside the player's half. */
void hockey_set_target(hockey_view *view, double x, double y);
/* Plays control windows until the game clock reaches t (at most
 * max_windows of them); nothing once the game is over. */
int hockey_advance(hockey_view *view, double t, int32_t max_windows);
/* 3 floats a body (x, y, radius): the puck, the player's mallet, the agent's. */
const float *hockey_bodies(hockey_view *view);
const double *hockey_counters(const hockey_view *view);
void hockey_destroy(hockey_view *view);

#endif
