/* steer_cli.h — `carom steer`: steered bodies in a container under a
 * scripted or replayed player, kept off the walls by the safety filter. */
#ifndef CAROM_STEER_CLI_H
#define CAROM_STEER_CLI_H

/* carom steer [SCENARIO] ARGS...: parses the options, runs the windows,
 * prints the figures. Returns the exit status (0, 1 bad input or a failed
 * run or output, 2 bad usage). */
int steer_command(int argc, char **argv);

#endif
