// dsx command-line entry point (commands are filled in dse/cli/commands.cpp).
#include <cstdio>
int main() { std::puts("dsx: under construction"); return 1; }
