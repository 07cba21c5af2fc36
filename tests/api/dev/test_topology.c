#include "dev_test.h"
int main(int argc, char **argv) { return sd_test_main(argc, argv); }
