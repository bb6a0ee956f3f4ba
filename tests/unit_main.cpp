// The one doctest main shared by tilewright-unit-tests and tilewright-golden-tests.
// Test files include <doctest/doctest.h> and only define TEST_CASEs.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
