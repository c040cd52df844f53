/* plot.h — `carom plot`: a series' statistics against time, or a frame's
 * speeds against Maxwell's distribution, drawn by gnuplot. */
#ifndef CAROM_PLOT_H
#define CAROM_PLOT_H

/* carom plot FILE [options]: returns the exit status (0; 1 bad input or a
 * failed plot; 2 bad usage). */
int plot_command(int argc, char **argv);

#endif
