#pragma once
// Patterns, replacements that construct IR, rules, rule sets, the Rewriter and the drivers.
#include "tilewright/rewrite/build.hpp"
#include "tilewright/rewrite/driver.hpp"
#include "tilewright/rewrite/op_set.hpp"
#include "tilewright/rewrite/pattern.hpp"
#include "tilewright/rewrite/rewriter.hpp"
#include "tilewright/rewrite/rule.hpp"
#include "tilewright/rewrite/use_count.hpp"
