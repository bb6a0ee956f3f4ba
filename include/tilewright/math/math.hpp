#pragma once
// The geometry layer in one include: integer shape, stride, layout, alignment and L0C
// fractal arithmetic, free of IR types and usable in constant evaluation.
#include "tilewright/math/alignment.hpp"
#include "tilewright/math/capacity.hpp"
#include "tilewright/math/checked.hpp"
#include "tilewright/math/dims.hpp"
#include "tilewright/math/enums.hpp"
#include "tilewright/math/l0c.hpp"
#include "tilewright/math/merge.hpp"
#include "tilewright/math/partition_window.hpp"
#include "tilewright/math/result.hpp"
#include "tilewright/math/strides.hpp"
#include "tilewright/math/tile_buf_signature.hpp"
