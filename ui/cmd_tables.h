/* cmd_tables -- every module's command table, registered at start. */
#ifndef CMD_TABLES_H
#define CMD_TABLES_H

/* Register every module's rows (cmd_register()) once.
 * Returns 0, or -pte_invalid if two modules claim one action (a bug). */
int cmd_tables_register(void);

#endif /* CMD_TABLES_H */
