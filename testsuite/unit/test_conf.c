/* test_conf.c - placeholder, filled in by the next commit. */
int main(void) { return 0; }
