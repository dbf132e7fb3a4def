/* Subcommands: one file each; each returns the process exit code. */
#ifndef SB_CMD_H
#define SB_CMD_H

int cmd_run(int argc, char **argv, int full_argc, char **full_argv);
int cmd_list(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_matrix(int argc, char **argv, int full_argc, char **full_argv);

#endif
