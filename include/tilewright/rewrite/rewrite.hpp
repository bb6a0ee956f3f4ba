#pragma once
// Patterns, rules, rule sets and the drivers that apply them.
#include "tilewright/rewrite/driver.hpp"
#include "tilewright/rewrite/op_set.hpp"
#include "tilewright/rewrite/pattern.hpp"
#include "tilewright/rewrite/rule.hpp"
#include "tilewright/rewrite/use_count.hpp"
