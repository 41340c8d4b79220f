// Recalibrating the roofline constants (see the header). The constants enter the objective
// through the whole analytic generator (a max of memory and compute per kernel), so the fit is
// non-linear; Eigen's Levenberg-Marquardt with a forward-difference Jacobian over the logarithms
// of the constants keeps each one positive without bounds.
#include "profiles/step_composition/analytic_recalibration.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include <Eigen/Dense>
#include <unsupported/Eigen/NonLinearOptimization>

#include "profiles/kernel_db/kernel_database.hpp"
#include "profiles/step_composition/measured_db_profile.hpp"
#include "profiles/step_composition/step_composer.hpp"
#include "profiles/time_model.hpp"

namespace sparksim {

namespace {

constexpr int kConstants = 5;

Eigen::VectorXd to_log(const RooflineConstants& c) {
  Eigen::VectorXd x(kConstants);
  x << std::log(c.bandwidth_efficiency), std::log(c.gemm_efficiency),
      std::log(c.attention_efficiency), std::log(c.kernel_overhead_us), std::log(c.step_fixed_us);
  return x;
}

// Each constant is kept within e^±7 (0.0009 to 1100): a direction the data do not pin down (one
// target's per-kernel overhead against its per-step constant) must not run off to 0 or infinity,
// where a step time overflows.
RooflineConstants from_log(const Eigen::VectorXd& x, RooflineConstants c) {
  const auto bounded = [](double v) { return std::exp(std::clamp(v, -7.0, 7.0)); };
  c.bandwidth_efficiency = bounded(x[0]);
  c.gemm_efficiency = bounded(x[1]);
  c.attention_efficiency = bounded(x[2]);
  c.kernel_overhead_us = bounded(x[3]);
  c.step_fixed_us = bounded(x[4]);
  return c;
}

// One (GPU, target) pair's composed steps, computed once.
struct PairData {
  RecalibrationPair pair;
  std::unique_ptr<KernelDatabase> db;
  std::unique_ptr<StepComposer> composer;
  std::vector<FidelityPoint> points;
  std::vector<BatchShape> shapes;
  std::vector<double> composed_ms;
};

struct Objective {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  const JsonFile* shapes = nullptr;
  const std::vector<RooflineObservations>* data = nullptr;
  RooflineConstants base;
  int points = 0;

  int inputs() const { return kConstants; }
  int values() const { return points; }

  // Relative errors of the analytic verify_time against the composition, all pairs in turn.
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& residuals) const {
    const RooflineConstants c = from_log(x, base);
    int i = 0;
    for (const RooflineObservations& d : *data) {
      const std::string gpu_short = d.pair.gpu.substr(0, d.pair.gpu.find('-'));
      const Profile p =
          make_analytic_profile(*shapes, gpu_short, d.pair.target, "2026-01-01", "", c);
      const TimeModel model(p);
      for (std::size_t k = 0; k < d.shapes.size(); ++k) {
        const double ms = sim_time_to_ms(model.verify_time(d.shapes[k]));
        residuals[i++] = (ms - d.observed_ms[k]) / d.observed_ms[k];
      }
    }
    return 0;
  }

  // Forward differences with a fixed step of 0.1% in each constant: the profile rounds its
  // coefficients (3-6 decimals) and step times to whole ns, so the default step of a numerical
  // differentiator (about 1e-8 relative) would see a Jacobian of zeros.
  int df(const Eigen::VectorXd& x, Eigen::MatrixXd& jacobian) const {
    constexpr double kStep = 1e-3;
    Eigen::VectorXd base_residuals(points);
    Eigen::VectorXd moved_residuals(points);
    (*this)(x, base_residuals);
    for (int j = 0; j < kConstants; ++j) {
      Eigen::VectorXd moved = x;
      moved[j] += kStep;
      (*this)(moved, moved_residuals);
      jacobian.col(j) = (moved_residuals - base_residuals) / kStep;
    }
    return 0;
  }
};

FitErrorReport analytic_error(const JsonFile& shapes, const PairData& d,
                              const RooflineConstants& c) {
  const std::string gpu_short = d.pair.gpu.substr(0, d.pair.gpu.find('-'));
  const Profile p = make_analytic_profile(shapes, gpu_short, d.pair.target, "2026-01-01", "", c);
  return profile_vs_composition(p, *d.composer, d.points);
}

}  // namespace

RooflineFit fit_roofline_constants(const JsonFile& shapes,
                                   const std::vector<RooflineObservations>& observations,
                                   const RooflineConstants& start) {
  int total = 0;
  for (const RooflineObservations& o : observations) {
    total += static_cast<int>(o.shapes.size());
  }
  Objective objective;
  objective.shapes = &shapes;
  objective.data = &observations;
  objective.base = start;
  objective.points = total;
  Eigen::LevenbergMarquardt<Objective> lm(objective);
  Eigen::VectorXd x = to_log(start);
  Eigen::VectorXd residuals(total);
  objective(x, residuals);
  RooflineFit fit;
  fit.rms_relative_before = std::sqrt(residuals.squaredNorm() / total);
  lm.minimize(x);
  objective(x, residuals);
  fit.rms_relative_after = std::sqrt(residuals.squaredNorm() / total);
  fit.iterations = static_cast<int>(lm.iter);
  fit.constants = from_log(x, start);
  return fit;
}

RecalibrationResult recalibrate_analytic(const std::string& database_dir, const JsonFile& shapes,
                                         const std::vector<RecalibrationPair>& pairs,
                                         const RooflineConstants& start) {
  std::vector<PairData> data;
  for (const RecalibrationPair& pair : pairs) {
    PairData d;
    d.pair = pair;
    const DenseTargetShape shape = read_dense_target(shapes, pair.target);
    d.db = std::make_unique<KernelDatabase>(KernelDatabase::load(
        database_dir, pair.gpu, AttentionHeads{shape.q_heads, shape.kv_heads, shape.head_dim}));
    const std::string gpu_short = pair.gpu.substr(0, pair.gpu.find('-'));
    const Profile analytic =
        make_analytic_profile(shapes, gpu_short, pair.target, "2026-01-01", "", start);
    // The composition is the fit's target: its memory-bound terms at the default rates,
    // as the measured-db profiles compose them, whatever constants the fit starts from.
    d.composer = std::make_unique<StepComposer>(*d.db, shape, analytic.verify.graph_buckets,
                                                memory_bound_rates(shapes, gpu_short));
    d.points = fidelity_points(analytic.kv_capacity_tokens());
    for (const FidelityPoint& fp : d.points) {
      d.shapes.push_back(batch_shape_of(fp.shape));
      d.composed_ms.push_back(d.composer->step(fp.shape).total_ms);
    }
    data.push_back(std::move(d));
  }

  std::vector<RooflineObservations> observations;
  for (const PairData& d : data) observations.push_back({d.pair, d.shapes, d.composed_ms});
  const RooflineFit fit = fit_roofline_constants(shapes, observations, start);
  RecalibrationResult r;
  r.rms_relative_before = fit.rms_relative_before;
  r.rms_relative_after = fit.rms_relative_after;
  r.iterations = fit.iterations;
  r.before = start;
  r.after = fit.constants;
  r.pairs = pairs;
  for (const PairData& d : data) {
    r.error_before.push_back(analytic_error(shapes, d, r.before));
    r.error_after.push_back(analytic_error(shapes, d, r.after));
  }
  return r;
}

}  // namespace sparksim
