/* render_cli.h — `carom render`: one frame of a trajectory as a PNG or SVG picture. */
#ifndef CAROM_RENDER_CLI_H
#define CAROM_RENDER_CLI_H

/* carom render TRAJECTORY [options]: returns the exit status (0; 1 bad input
 * or a failed output; 2 bad usage). */
int render_command(int argc, char **argv);

#endif
