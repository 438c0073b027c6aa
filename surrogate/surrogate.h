// surrogate/'s public interface: the XGBoost accuracy surrogate.
//
//   xgboost.h         RAII Booster / DMatrix over XGBoost's C API, MatrixView, model files
//   forest.h          compiled trees: fast, thread-safe, bit-identical batch prediction
//   regressor.h       one early-stopped gradient-boosted regressor
//   ensemble.h        bagged ensemble: mean and std per prediction
//   surrogate_file.h  the surrogate container file (metadata + member models)
//   split.h           80/10/10 train/valid/test split by group key
//   metrics.h         RMSE, R^2, Kendall tau-b, sparse tau, top-10% recall, std calibration
//   learning_curve.h  test tau against training-set size
//   parity_chart.h    predicted-vs-true SVG with error bars
#pragma once

#include "surrogate/ensemble.h"
#include "surrogate/forest.h"
#include "surrogate/learning_curve.h"
#include "surrogate/metrics.h"
#include "surrogate/parity_chart.h"
#include "surrogate/regressor.h"
#include "surrogate/split.h"
#include "surrogate/surrogate_file.h"
#include "surrogate/xgboost.h"
