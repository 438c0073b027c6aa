// The model registry (models/registry.h) and the zoo's registration into it (models/zoo/zoo.h).
#include "models/registry.h"

#include <catch2/catch.hpp>
#include <string>

#include "common/errors.h"
#include "models/zoo/zoo.h"

namespace dcnas::models {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("a registry starts empty and the zoo registers into it") {
  ModelRegistry registry;
  CHECK(registry.Names().empty());
  CHECK_FALSE(registry.Contains("efficientnet-b0"));
  zoo::RegisterZoo(registry);
  CHECK(registry.Names() == BuiltinModels().Names());
  CHECK(registry.Contains("efficientnet-b0"));
  CHECK(registry.Contains("resnet50"));
  CHECK(registry.Families() == BuiltinModels().Families());
  // Registering the zoo twice is a bug, not an input error.
  CHECK_THROWS_AS(zoo::RegisterZoo(registry), InternalError);
}

TEST_CASE("a registry holds what is registered, in order, and names the closest on a miss") {
  ModelRegistry registry;
  const auto tiny = [](const BuildOptions& options) {
    GraphBuilder b("tiny", options);
    b.GlobalPool(b.Input(options.resolution, options.resolution, 3));
    return b.Finish();
  };
  registry.Register({.name = "tiny-a", .family = "tiny", .description = "a", .build = tiny});
  registry.Register({.name = "tiny-b",
                     .family = "tiny",
                     .description = "b",
                     .native_resolution = 32,
                     .build = tiny});
  CHECK(registry.Names() == std::vector<std::string>{"tiny-a", "tiny-b"});
  CHECK(registry.Family("tiny").size() == 2);
  const Graph g = registry.Build("tiny-b", BuildOptions{});
  CHECK(g.info().model == "tiny-b");
  CHECK(g.info().resolution == 32);
  CHECK_THROWS_WITH(registry.Get("tiny-c"), Contains("tiny-a") || Contains("tiny-b"));
  CHECK_THROWS_AS(registry.Family("huge"), InputError);
  CHECK_THROWS_AS(registry.Register({.name = "tiny-a", .family = "tiny", .build = tiny}),
                  InternalError);
}

}  // namespace
}  // namespace dcnas::models
