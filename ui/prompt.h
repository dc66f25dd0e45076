/* prompt -- the ':' prompt: a view on GNU readline's callback interface. */
#ifndef PROMPT_H
#define PROMPT_H

struct ui;

/* Open the prompt with initial text @text (may be NULL). */
void prompt_open(struct ui *ui, const char *text);
/* Feed a key to the open prompt's readline (the prompt key table is
 * the view's, before this).  Returns UI_DRAW_*. */
int prompt_key(struct ui *ui, int key);
/* Whether the prompt is open. */
int prompt_is_open(const struct ui *ui);
/* Load and save the history file ($XDG_STATE_HOME/ptbrowse/history);
 * the keys help and the lists share (':' opens the prompt over them)
 * given to the view stack (cmd_view_key()). */
void prompt_init(struct ui *ui);
void prompt_done(struct ui *ui);

#endif /* PROMPT_H */
