# Every third-party dependency, found once. All come from Debian 12 packages (deploy/install-deps.sh).
find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(absl REQUIRED CONFIG)
find_package(TBB REQUIRED CONFIG)
find_package(assimp REQUIRED CONFIG)
find_package(CLI11 REQUIRED CONFIG)
find_package(Protobuf REQUIRED)
find_package(gRPC REQUIRED CONFIG)
if(CONTACTSIM_BUILD_TESTS)
  find_package(GTest REQUIRED CONFIG)
endif()
if(CONTACTSIM_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED CONFIG)
endif()

# Warnings for our own targets only.
add_library(contactsim_warnings INTERFACE)
target_compile_options(contactsim_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>)
