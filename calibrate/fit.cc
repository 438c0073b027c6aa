// The only translation unit that includes Eigen's NonLinearOptimization module (its
// LevenbergMarquardt class clashes with the newer unsupported/Eigen/LevenbergMarquardt one).
#include "calibrate/fit.h"

#include <Eigen/Dense>
#include <unsupported/Eigen/NonLinearOptimization>

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/errors.h"

namespace dcnas::calibrate {
namespace {

double Sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }
double Logit(double s) { return std::log(s / (1.0 - s)); }

// Maps the free parameters' sigmoid-space vector z to the full parameter vector.
class ParameterMap {
 public:
  ParameterMap(const std::vector<ParameterSpec>& specs, const std::vector<size_t>& free)
      : specs_(specs), free_(free) {
    for (const ParameterSpec& s : specs) defaults_.push_back(s.default_value);
  }

  std::vector<double> Params(const Eigen::VectorXd& z) const {
    std::vector<double> p = defaults_;
    for (size_t k = 0; k < free_.size(); ++k) {
      const ParameterSpec& s = specs_[free_[k]];
      p[free_[k]] = s.lower + (s.upper - s.lower) * Sigmoid(z[static_cast<Eigen::Index>(k)]);
    }
    return p;
  }

  Eigen::VectorXd DefaultZ() const {
    Eigen::VectorXd z(static_cast<Eigen::Index>(free_.size()));
    for (size_t k = 0; k < free_.size(); ++k) {
      const ParameterSpec& s = specs_[free_[k]];
      z[static_cast<Eigen::Index>(k)] = Logit((s.default_value - s.lower) / (s.upper - s.lower));
    }
    return z;
  }

  // dp/dz of free parameter k at z.
  double Slope(const Eigen::VectorXd& z, size_t k) const {
    const ParameterSpec& s = specs_[free_[k]];
    const double sg = Sigmoid(z[static_cast<Eigen::Index>(k)]);
    return (s.upper - s.lower) * sg * (1.0 - sg);
  }

  const std::vector<double>& defaults() const { return defaults_; }

 private:
  const std::vector<ParameterSpec>& specs_;
  const std::vector<size_t>& free_;
  std::vector<double> defaults_;
};

// The residual functor in the form Eigen's LevenbergMarquardt expects.
class Residuals {
 public:
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;

  Residuals(const LatencyModel& model, const std::vector<Measurement>& rows,
            const ParameterMap& map, Eigen::VectorXd z0, double regularization, double step)
      : model_(model),
        rows_(rows),
        map_(map),
        z0_(std::move(z0)),
        reg_sqrt_(std::sqrt(regularization)),
        step_(step) {
    for (const Measurement& m : rows) log_measured_.push_back(std::log(m.latency_ms));
  }

  int inputs() const { return static_cast<int>(z0_.size()); }
  int values() const { return static_cast<int>(rows_.size() + z0_.size()); }

  // Returns 0 on success, a negative value (which stops the optimiser) on a bad prediction.
  int operator()(const Eigen::VectorXd& z, Eigen::VectorXd& fvec) const {
    ++evaluations_;
    const std::vector<double> predicted = model_.PredictAllMs(map_.Params(z), rows_);
    if (predicted.size() != rows_.size()) {
      throw InternalError("latency model returned " + std::to_string(predicted.size()) +
                          " predictions for " + std::to_string(rows_.size()) + " rows");
    }
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (!(predicted[i] > 0) || !std::isfinite(predicted[i])) {
        bad_row_ = static_cast<int>(i);
        return -1;
      }
      fvec[static_cast<Eigen::Index>(i)] = std::log(predicted[i]) - log_measured_[i];
    }
    for (Eigen::Index k = 0; k < z.size(); ++k) {
      fvec[static_cast<Eigen::Index>(rows_.size()) + k] = reg_sqrt_ * (z[k] - z0_[k]);
    }
    return 0;
  }

  // Central differences in z.
  int df(const Eigen::VectorXd& z, Eigen::MatrixXd& fjac) const {
    Eigen::VectorXd plus(values());
    Eigen::VectorXd minus(values());
    Eigen::VectorXd zz = z;
    for (Eigen::Index k = 0; k < z.size(); ++k) {
      zz[k] = z[k] + step_;
      if ((*this)(zz, plus) < 0) return -1;
      zz[k] = z[k] - step_;
      if ((*this)(zz, minus) < 0) return -1;
      zz[k] = z[k];
      fjac.col(k) = (plus - minus) / (2.0 * step_);
    }
    return 0;
  }

  int evaluations() const { return evaluations_; }
  int bad_row() const { return bad_row_; }

 private:
  const LatencyModel& model_;
  const std::vector<Measurement>& rows_;
  const ParameterMap& map_;
  Eigen::VectorXd z0_;
  double reg_sqrt_;
  double step_;
  std::vector<double> log_measured_;
  mutable int evaluations_ = 0;
  mutable int bad_row_ = -1;
};

std::string StatusText(Eigen::LevenbergMarquardtSpace::Status status) {
  using S = Eigen::LevenbergMarquardtSpace::Status;
  switch (status) {
    case S::ImproperInputParameters:
      return "improper input parameters";
    case S::RelativeReductionTooSmall:
      return "relative reduction of the cost below tolerance";
    case S::RelativeErrorTooSmall:
      return "relative step below tolerance";
    case S::RelativeErrorAndReductionTooSmall:
      return "relative reduction and step below tolerance";
    case S::CosinusTooSmall:
      return "gradient orthogonal to the residuals";
    case S::TooManyFunctionEvaluation:
      return "too many evaluations";
    case S::FtolTooSmall:
      return "no further reduction of the cost possible";
    case S::XtolTooSmall:
      return "no further improvement of the parameters possible";
    case S::GtolTooSmall:
      return "gradient vanished to machine precision";
    case S::UserAsked:
      return "a prediction was not finite and positive";
    default:
      return "status " + std::to_string(static_cast<int>(status));
  }
}

bool Converged(Eigen::LevenbergMarquardtSpace::Status status) {
  using S = Eigen::LevenbergMarquardtSpace::Status;
  switch (status) {
    case S::RelativeReductionTooSmall:
    case S::RelativeErrorTooSmall:
    case S::RelativeErrorAndReductionTooSmall:
    case S::CosinusTooSmall:
    case S::FtolTooSmall:
    case S::XtolTooSmall:
    case S::GtolTooSmall:
      return true;
    default:
      return false;
  }
}

double RmsLogResidual(const std::vector<double>& predicted, const std::vector<Measurement>& rows) {
  double sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const double r = std::log(predicted[i] / rows[i].latency_ms);
    sum += r * r;
  }
  return std::sqrt(sum / static_cast<double>(rows.size()));
}

}  // namespace

std::vector<double> LatencyModel::PredictAllMs(const std::vector<double>& params,
                                               const std::vector<Measurement>& rows) const {
  std::vector<double> out;
  out.reserve(rows.size());
  for (const Measurement& m : rows) out.push_back(PredictMs(params, m));
  return out;
}

FunctionModel::FunctionModel(std::vector<ParameterSpec> parameters, Fn fn)
    : parameters_(std::move(parameters)), fn_(std::move(fn)) {}

std::vector<double> DefaultValues(const LatencyModel& model) {
  std::vector<double> values;
  for (const ParameterSpec& s : model.Parameters()) values.push_back(s.default_value);
  return values;
}

std::vector<double> PredictChecked(const LatencyModel& model, const std::vector<double>& params,
                                   const std::vector<Measurement>& rows) {
  std::vector<double> predicted = model.PredictAllMs(params, rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!(predicted[i] > 0) || !std::isfinite(predicted[i])) {
      throw InputError(rows[i].where() + ": predicted latency of " + rows[i].model + " is " +
                       std::to_string(predicted[i]) + " ms (must be finite and positive)");
    }
  }
  return predicted;
}

FitResult Fit(const LatencyModel& model, const std::vector<Measurement>& rows,
              const FitOptions& options) {
  const std::vector<ParameterSpec>& specs = model.Parameters();
  if (rows.empty()) throw InputError("calibration fit: no measurement rows to fit");
  std::vector<size_t> free;
  for (const std::string& name : options.free) {
    bool known = false;
    for (const ParameterSpec& s : specs) known = known || s.name == name;
    if (!known) throw InputError("calibration fit: unknown parameter '" + name + "'");
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const ParameterSpec& s = specs[i];
    if (!(s.lower < s.default_value && s.default_value < s.upper)) {
      throw InputError("calibration parameter '" + s.name + "': default " +
                       std::to_string(s.default_value) + " is not inside its bounds (" +
                       std::to_string(s.lower) + ", " + std::to_string(s.upper) + ")");
    }
    if (options.free.empty() || options.free.count(s.name)) free.push_back(i);
  }
  if (free.empty()) throw InputError("calibration fit: no free parameters");

  const ParameterMap map(specs, free);
  const Eigen::VectorXd z0 = map.DefaultZ();
  Residuals residuals(model, rows, map, z0, options.regularization, options.jacobian_step);

  FitResult result;
  for (const ParameterSpec& s : specs) result.names.push_back(s.name);
  result.defaults = map.defaults();
  result.rms_log_residual_before =
      RmsLogResidual(PredictChecked(model, result.defaults, rows), rows);

  Eigen::VectorXd z = z0;
  Eigen::LevenbergMarquardt<Residuals> lm(residuals);
  lm.parameters.maxfev = options.max_evaluations;
  lm.parameters.ftol = options.tolerance;
  lm.parameters.xtol = options.tolerance;
  const Eigen::LevenbergMarquardtSpace::Status status = lm.minimize(z);
  result.status = StatusText(status);
  result.evaluations = residuals.evaluations();
  if (!Converged(status)) {
    std::string detail =
        result.status + " after " + std::to_string(result.evaluations) + " evaluations";
    if (residuals.bad_row() >= 0) {
      detail += " (row " + rows[static_cast<size_t>(residuals.bad_row())].where() + ", " +
                rows[static_cast<size_t>(residuals.bad_row())].model + ")";
    }
    throw NotConvergedError(detail);
  }

  result.values = map.Params(z);
  result.predicted_ms = PredictChecked(model, result.values, rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    result.log_residuals.push_back(std::log(result.predicted_ms[i] / rows[i].latency_ms));
  }
  result.rms_log_residual = RmsLogResidual(result.predicted_ms, rows);

  // Covariance of the linearised problem at the optimum.
  Eigen::MatrixXd jacobian(residuals.values(), residuals.inputs());
  if (residuals.df(z, jacobian) < 0) {
    throw NotConvergedError("a prediction near the optimum was not finite and positive");
  }
  const double dof =
      std::max(1.0, static_cast<double>(rows.size()) - static_cast<double>(free.size()));
  double ssr = 0;
  for (double r : result.log_residuals) ssr += r * r;
  const Eigen::MatrixXd jtj = jacobian.transpose() * jacobian;
  const Eigen::MatrixXd cov = (ssr / dof) * jtj.completeOrthogonalDecomposition().pseudoInverse();
  result.std_errors.assign(specs.size(), 0.0);
  result.fitted.assign(specs.size(), false);
  for (size_t k = 0; k < free.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    result.std_errors[free[k]] = map.Slope(z, k) * std::sqrt(std::max(0.0, cov(kk, kk)));
    result.fitted[free[k]] = true;
  }
  return result;
}

}  // namespace dcnas::calibrate
