/* airhockey_cli.h — `carom airhockey`: plays the air-hockey game of
 * examples/airhockey and reports it. */
#ifndef CAROM_AIRHOCKEY_CLI_H
#define CAROM_AIRHOCKEY_CLI_H

/* carom airhockey ARGS...: parses the options, plays, prints the score and
 * statistics. Returns the exit status (0, 1 failed game or output, 2 bad
 * usage). */
int airhockey_command(int argc, char **argv);

#endif
