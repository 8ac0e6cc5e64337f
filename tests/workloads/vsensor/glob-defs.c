/* glob-defs.c - the third file of glob-main.c's program: definitions alone. */
int ndef;
