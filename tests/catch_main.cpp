// Catch2 v2 entry point for the whole suite (kept in its own file so it compiles once).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
