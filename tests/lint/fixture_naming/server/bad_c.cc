// Fixture: a free function named against the rules.
int bad_function_name() { return 3; }
