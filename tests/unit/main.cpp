// doctest's main for the unit and property tests (native and wasm/node).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
