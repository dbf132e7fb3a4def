/* Subcommands: one file each; each returns the process exit code. */
#ifndef SB_CMD_H
#define SB_CMD_H

int cmd_run(int argc, char **argv, int full_argc, char **full_argv);
int cmd_list(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Hooks of `run` (history.c, report.c): each prints its own message on
 * stderr and returns EXIT_OK or EXIT_RUNTIME. */
struct run_result;
int run_store_history(const struct run_result *r, const char *dbspec, int no_db, int quiet);
int run_write_report(const struct run_result *r, const char *path);

#endif
