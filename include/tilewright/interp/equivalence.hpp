#pragma once
// Translation validation: do two programs compute the same thing?
//
// For every function both programs define (by name), `check_equivalent` draws `trials` input
// sets from `seed`: one raw buffer per tensor parameter (sized for both programs' views of
// it, so each program reads it through its own declared view), random values for scalar
// parameters, and values for the dynamic dimensions. The reference runs first; the
// candidate runs on an identical copy. Every buffer (and every returned value) must agree
// wherever the reference's result is defined: the candidate may define more, never less.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tilewright/config.hpp"
#include "tilewright/interp/interpreter.hpp"

namespace tilewright::interp {

// splitmix64: a small, portable generator (std distributions differ between libraries, and
// the inputs of a seed must be the same everywhere).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  std::int64_t range(std::int64_t lo, std::int64_t hi) noexcept {
    if (hi <= lo) return lo;
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool coin(unsigned percent = 50) noexcept { return next() % 100 < percent; }

 private:
  std::uint64_t state_;
};

inline std::uint64_t mix_seed(std::uint64_t seed, std::string_view salt, std::uint64_t n) {
  std::uint64_t h = seed ^ 0x632be59bd9b4e019ULL;
  for (char ch : salt) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;
  Rng r(h ^ (n * 0x9e3779b97f4a7c15ULL));
  return r.next();
}

struct EquivalenceOptions {
  std::uint64_t seed = 1;
  int trials = 16;
  std::map<std::string, std::int64_t, std::less<>> dims;  // fixed dynamic dims (--dims)
  std::int64_t max_dim = 48;      // dynamic dims are drawn from [1, max_dim]
  std::uint64_t step_budget = 20'000'000;
};

struct Difference {
  std::string function;
  std::string output;  // "buffer of parameter out_0", "return value 0", …
  std::string where;   // element index
  std::string expected, actual;
  int trial = 0;
  std::uint64_t seed = 0;
  [[nodiscard]] std::string describe() const {
    return "function '" + function + "', " + output + ", element " + where + ": reference " + expected +
           ", candidate " + actual + " (seed " + std::to_string(seed) + ", trial " + std::to_string(trial) + ")";
  }
};

struct EquivalenceReport {
  enum class Status : std::uint8_t { equivalent, different, unsupported, cannot_run };
  Status status = Status::equivalent;
  std::optional<Difference> difference;
  std::string message;             // why not equivalent / not checkable
  int trials_run = 0;              // trials where the reference ran and outputs were compared
  int trials_skipped = 0;          // trials whose inputs the reference could not run with
  std::vector<std::string> functions;  // compared
  std::size_t notes = 0;           // undefined elements stored into valid regions (reference)
  std::size_t elements_compared = 0;  // defined reference elements checked (0: a vacuous check)
  [[nodiscard]] bool ok() const noexcept { return status == Status::equivalent; }
};

// Runs `function` of both programs on the trials' inputs and compares.
TILEWRIGHT_API EquivalenceReport check_function(const ir::Program& reference, const ir::Program& candidate,
                                                const std::string& name, const EquivalenceOptions& opt);
// Every function both programs define; the first one that differs (or cannot be checked)
// decides the report. Compiled once in the compiled mode (tilewright/config.hpp).
TILEWRIGHT_API EquivalenceReport check_equivalent(const ir::Program& reference, const ir::Program& candidate,
                                                  const EquivalenceOptions& opt = {});

#if TILEWRIGHT_DEFINITIONS
namespace equivalence_detail {

inline void collect_free_dims(const ir::Type& t, std::set<std::string>& out);
inline void collect_free_dims(const ir::Expr& e, std::set<std::string>& out) {
  if (!e) return;
  if (auto* v = ir::as<ir::Var>(e)) {
    out.insert(v->name.text);
    return;
  }
  if (auto* b = ir::as<ir::Binary>(e)) {
    collect_free_dims(b->lhs, out);
    collect_free_dims(b->rhs, out);
  } else if (auto* u = ir::as<ir::Unary>(e)) {
    collect_free_dims(u->operand, out);
  }
}
inline void collect_free_dims(const ir::Type& t, std::set<std::string>& out) {
  auto dims = [&](const std::vector<ir::Expr>& v) {
    for (const auto& d : v) collect_free_dims(d, out);
  };
  if (auto* tt = ir::as<ir::TensorType>(t)) {
    dims(tt->shape);
    if (tt->view) {
      dims(tt->view->valid_shape);
      dims(tt->view->stride);
    }
  } else if (auto* tl = ir::as<ir::TileType>(t)) {
    dims(tl->shape);
  } else if (auto* tu = ir::as<ir::TupleType>(t)) {
    for (const auto& e : tu->elements) collect_free_dims(e, out);
  }
}

// A random value exactly representable in `dt`: small, so sums and products stay exact.
inline double random_element(Rng& r, DataType dt) {
  if (dt == DataType::BOOL) return static_cast<double>(r.range(0, 1));
  if (ir::is_float(dt)) return store_rounded(static_cast<double>(r.range(-32, 32)) / 8.0, dt);
  if (ir::is_unsigned(dt)) return static_cast<double>(r.range(0, 15));
  return static_cast<double>(r.range(-8, 8));
}

struct Inputs {
  std::map<std::string, std::int64_t, std::less<>> dims;
  std::vector<Value> args;                  // reference copy
  std::vector<std::shared_ptr<Buffer>> buffers;  // per parameter, null for non-tensors
};

inline std::shared_ptr<Buffer> copy_buffer(const Buffer& b) { return std::make_shared<Buffer>(b); }

inline std::string element_text(const Buffer& b, std::size_t i) {
  if (!b.defined[i]) return "undefined";
  char s[64];
  std::snprintf(s, sizeof s, "%.9g", b.data[i]);
  return s;
}
inline std::string value_text(double v) {
  char s[64];
  std::snprintf(s, sizeof s, "%.9g", v);
  return s;
}

}  // namespace equivalence_detail

TILEWRIGHT_API EquivalenceReport check_function(const ir::Program& reference, const ir::Program& candidate,
                                                const std::string& name, const EquivalenceOptions& opt) {
  using namespace equivalence_detail;
  EquivalenceReport rep;
  rep.functions.push_back(name);
  ir::Function rf = ir::find_function(*reference, name), cf = ir::find_function(*candidate, name);
  if (rf->params.size() != cf->params.size()) {
    rep.status = EquivalenceReport::Status::different;
    rep.message = "function '" + name + "' takes " + std::to_string(rf->params.size()) + " parameters in the reference and " +
                  std::to_string(cf->params.size()) + " in the candidate";
    return rep;
  }
  std::set<std::string> free;
  for (const auto* f : {rf.get(), cf.get()})
    for (const auto& p : f->params) collect_free_dims(p.var->type, free);
  for (const auto& p : rf->params) free.erase(std::string(ir::name_hint(p.var)));

  for (int trial = 0; trial < opt.trials; ++trial) {
    bool ran = false;
    for (int attempt = 0; attempt < 6 && !ran; ++attempt) {
      Rng rng(mix_seed(opt.seed, name, static_cast<std::uint64_t>(trial) * 16 + static_cast<std::uint64_t>(attempt)));
      RunOptions ro;
      ro.step_budget = opt.step_budget;
      std::int64_t dim_cap = std::max<std::int64_t>(1, opt.max_dim >> attempt);
      for (const auto& d : free) {
        auto fixed = opt.dims.find(d);
        ro.dims[d] = fixed != opt.dims.end() ? fixed->second : rng.range(1, dim_cap);
      }
      for (const auto& [k, v] : opt.dims) ro.dims.emplace(k, v);
      // Parameters: scalars drawn small (smaller on each retry), one buffer per tensor.
      std::vector<Value> ref_args, cand_args;
      std::vector<std::shared_ptr<Buffer>> ref_bufs, cand_bufs;
      std::int64_t scalar_cap = std::max<std::int64_t>(0, 8 >> attempt);
      try {
        Interpreter sizing_ref(reference, ro), sizing_cand(candidate, ro);
        for (std::size_t i = 0; i < rf->params.size(); ++i) {
          const auto& rp = rf->params[i];
          const auto& cp = cf->params[i];
          if (auto* st = ir::as<ir::ScalarType>(rp.var->type)) {
            double v = ir::is_float(st->dtype) ? random_element(rng, st->dtype)
                       : st->dtype == DataType::BOOL ? static_cast<double>(rng.range(0, 1))
                                                     : static_cast<double>(rng.range(0, scalar_cap));
            ref_args.push_back(Scalar{st->dtype, v, true});
            cand_args.push_back(Scalar{st->dtype, v, true});
            ref_bufs.push_back(nullptr);
            cand_bufs.push_back(nullptr);
            continue;
          }
          if (ir::as<ir::TensorType>(rp.var->type)) {
            TensorAccess ra = sizing_ref.tensor_access(rp.var->type, rp.var->span);
            std::int64_t extent = ra.extent();
            if (ir::as<ir::TensorType>(cp.var->type))
              extent = std::max(extent, sizing_cand.tensor_access(cp.var->type, cp.var->span).extent());
            auto b = std::make_shared<Buffer>();
            b->name = std::string(ir::name_hint(rp.var));
            b->dtype = ra.dtype;
            b->data.assign(run_allocation(extent, "parameter '" + b->name + "' " + dims_string(ra.shape), rp.var->span),
                           0.0);
            b->defined.assign(b->data.size(), 0);
            if (rp.direction != ir::ParamDirection::Out) {
              for (auto& x : b->data) x = random_element(rng, ra.dtype);
              std::fill(b->defined.begin(), b->defined.end(), 1);
            }
            auto c = copy_buffer(*b);
            ref_args.push_back(TensorRef{b});
            cand_args.push_back(TensorRef{c});
            ref_bufs.push_back(b);
            cand_bufs.push_back(c);
            continue;
          }
          rep.status = EquivalenceReport::Status::unsupported;
          rep.message = "function '" + name + "': parameter '" + std::string(ir::name_hint(rp.var)) +
                        "' is neither a tensor nor a scalar, so no input can be drawn for it";
          return rep;
        }
      } catch (const RunError& e) {
        if (e.kind() == RunErrorKind::cannot_run) continue;
        rep.status = e.kind() == RunErrorKind::unsupported ? EquivalenceReport::Status::unsupported
                                                           : EquivalenceReport::Status::cannot_run;
        rep.message = "function '" + name + "': " + e.what();
        return rep;
      }
      std::vector<Value> ref_out, cand_out;
      try {
        Interpreter run(reference, ro);
        ref_out = run.call(name, ref_args);
        rep.notes += run.note_count();
      } catch (const RunError& e) {
        if (e.kind() == RunErrorKind::cannot_run) continue;  // redraw smaller inputs
        rep.status = e.kind() == RunErrorKind::unsupported ? EquivalenceReport::Status::unsupported
                                                           : EquivalenceReport::Status::cannot_run;
        rep.message = "the reference cannot run function '" + name + "': " + e.what();
        return rep;
      }
      ran = true;
      auto diff = [&](std::string output, std::string where, std::string expected, std::string actual) {
        rep.status = EquivalenceReport::Status::different;
        rep.difference = Difference{name, std::move(output), std::move(where), std::move(expected), std::move(actual),
                                    trial, opt.seed};
        rep.message = rep.difference->describe();
        return rep;
      };
      try {
        Interpreter run(candidate, ro);
        cand_out = run.call(name, cand_args);
      } catch (const RunError& e) {
        if (e.kind() == RunErrorKind::unsupported) {
          rep.status = EquivalenceReport::Status::unsupported;
          rep.message = "the candidate cannot be run: " + std::string(e.what());
          return rep;
        }
        return diff("the run", "-", "completes", std::string("fails: ") + e.what());
      }
      for (std::size_t i = 0; i < ref_bufs.size(); ++i) {
        if (!ref_bufs[i]) continue;
        const Buffer& a = *ref_bufs[i];
        const Buffer& b = *cand_bufs[i];
        for (std::size_t k = 0; k < a.data.size(); ++k) {
          if (!a.defined[k]) continue;
          ++rep.elements_compared;
          if (!b.defined[k] || !same_element(a.data[k], b.data[k]))
            return diff("buffer of parameter '" + a.name + "'", "offset " + std::to_string(k), element_text(a, k),
                        element_text(b, k));
        }
      }
      if (ref_out.size() != cand_out.size())
        return diff("the return values", "-", std::to_string(ref_out.size()) + " values", std::to_string(cand_out.size()));
      for (std::size_t i = 0; i < ref_out.size(); ++i) {
        const Value& a = ref_out[i];
        const Value& b = cand_out[i];
        std::string what = "return value " + std::to_string(i);
        if (const Scalar* sa = a.scalar()) {
          const Scalar* sb = b.scalar();
          if (!sb) return diff(what, "-", "a scalar", "not a scalar");
          if (sa->defined && (!sb->defined || !same_element(sa->value, sb->value)))
            return diff(what, "-", value_text(sa->value), sb->defined ? value_text(sb->value) : "undefined");
        } else if (const Tile* ta = a.tile()) {
          const Tile* tb = b.tile();
          if (!tb || tb->size() != ta->size()) return diff(what, "-", "a tile of " + dims_string(ta->shape), "another value");
          for (std::size_t k = 0; k < ta->size(); ++k)
            if (ta->defined[k] && (!tb->defined[k] || !same_element(ta->data[k], tb->data[k])))
              return diff(what, std::to_string(k), value_text(ta->data[k]), tb->defined[k] ? value_text(tb->data[k]) : "undefined");
        } else if (const TensorRef* ra = a.tensor()) {
          const TensorRef* rb = b.tensor();
          if (!rb) return diff(what, "-", "a tensor", "not a tensor");
          bool is_param = false;
          for (const auto& p : ref_bufs) is_param = is_param || p == ra->buffer;
          if (is_param) continue;  // compared as that parameter's buffer
          const Buffer& x = *ra->buffer;
          const Buffer& y = *rb->buffer;
          for (std::size_t k = 0; k < x.data.size(); ++k)
            if (x.defined[k] && (k >= y.data.size() || !y.defined[k] || !same_element(x.data[k], y.data[k])))
              return diff(what, "offset " + std::to_string(k), element_text(x, k),
                          k < y.data.size() ? element_text(y, k) : "missing");
        }
      }
      ++rep.trials_run;
    }
    if (!ran) ++rep.trials_skipped;
  }
  if (rep.trials_run == 0 && opt.trials > 0) {
    rep.status = EquivalenceReport::Status::cannot_run;
    rep.message = "function '" + name + "': no input set the reference could run with was found in " +
                  std::to_string(opt.trials) + " trials (fix the dynamic dims with --dims)";
  }
  return rep;
}

TILEWRIGHT_API EquivalenceReport check_equivalent(const ir::Program& reference, const ir::Program& candidate,
                                                  const EquivalenceOptions& opt) {
  EquivalenceReport total;
  for (const auto& f : reference->functions) {
    if (!ir::find_function(*candidate, f->name)) continue;
    EquivalenceReport r = check_function(reference, candidate, f->name, opt);
    total.functions.push_back(f->name);
    total.trials_run += r.trials_run;
    total.trials_skipped += r.trials_skipped;
    total.notes += r.notes;
    total.elements_compared += r.elements_compared;
    if (!r.ok()) {
      r.functions = total.functions;
      r.trials_run = total.trials_run;
      r.trials_skipped = total.trials_skipped;
      return r;
    }
  }
  return total;
}

#endif  // TILEWRIGHT_DEFINITIONS

}  // namespace tilewright::interp
