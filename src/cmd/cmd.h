/* SPDX-License-Identifier: MIT */
/* Subcommands: one file each; each returns the process exit code. */
#ifndef SB_CMD_H
#define SB_CMD_H

int cmd_run(int argc, char **argv, int full_argc, char **full_argv);
int cmd_list(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_matrix(int argc, char **argv, int full_argc, char **full_argv);
int cmd_history(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compare(int argc, char **argv, int full_argc, char **full_argv);
int cmd_report(int argc, char **argv);
int cmd_worker(int argc, char **argv); /* internal (worker.h) */
int cmd_task(int argc, char **argv);   /* internal: a task process of run --tasks (tasks.c) */

/* Hooks of the sweeping commands (run; matrix), called once the result
 * is complete (history.c, report.c). cmd names the command in messages
 * ("run"); each prints its own message on stderr and returns EXIT_OK or
 * EXIT_RUNTIME. */
struct run_result;
int run_store_history(const struct run_result *r, const char *cmd, const char *dbspec, int no_db,
		      int quiet);
int run_write_report(const struct run_result *r, const char *cmd, const char *path);

#endif
