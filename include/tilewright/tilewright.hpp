#pragma once
// tilewright — umbrella header.
//
// Including <tilewright/tilewright.hpp> gives the whole library: math/, ir/, ops/, text/,
// rewrite/, pass/, passes/<pass_name>/ and backend/. Each layer's headers are added here as
// they land; a pass's folder can be deleted by removing its include below (and its entry in
// the pipeline list).
//
#include "tilewright/backend/backend.hpp"
#include "tilewright/build/builder.hpp"
#include "tilewright/ir/function.hpp"
#include "tilewright/ir/geometry.hpp"
#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/math/math.hpp"
#include "tilewright/ops/catalog.hpp"
#include "tilewright/ops/create.hpp"
#include "tilewright/ops/deduction_memo.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/canonicalize_tile_slice/pass.hpp"
#include "tilewright/passes/convert_to_ssa/pass.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/passes/fold_no_op_reshape/pass.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"
#include "tilewright/passes/registry.hpp"
#include "tilewright/passes/with_rules.hpp"
#include "tilewright/rewrite/rewrite.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"
#include "tilewright/text/roundtrip.hpp"
#include "tilewright/version.hpp"
