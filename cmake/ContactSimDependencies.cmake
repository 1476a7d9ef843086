# Every third-party dependency, found once. All come from Debian 12 packages (deploy/install-deps.sh).
find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(absl REQUIRED CONFIG)
find_package(TBB REQUIRED CONFIG)
find_package(assimp REQUIRED CONFIG)
find_package(CLI11 REQUIRED CONFIG)
# Qhull (Debian libqhull-dev, the Qhull licence: permissive): convex hulls of polytope bodies,
# through the reentrant C library qhull_r (core/geometry/polytope_hull.cc).
find_package(Qhull REQUIRED CONFIG)
# urdfdom (Debian liburdfdom-dev, BSD) and its console_bridge: robot descriptions from URDF
# (core/dynamics/robots/urdf_loader.cc). Its config gives variables, not usable targets.
find_package(urdfdom REQUIRED CONFIG)
if(NOT TARGET contactsim_urdfdom)
  add_library(contactsim_urdfdom INTERFACE)
  target_include_directories(contactsim_urdfdom SYSTEM INTERFACE ${urdfdom_INCLUDE_DIRS})
  target_link_libraries(contactsim_urdfdom INTERFACE ${urdfdom_LIBRARIES})
endif()
# tinyxml2 (Debian libtinyxml2-dev, zlib licence): the C++ client reads a URDF's <mesh filename>s
# (clients/cpp/urdf_mesh_files.cc) to send the files with AddRobot.
find_package(tinyxml2 REQUIRED CONFIG)
# METIS (Apache-2.0, Debian libmetis-dev) ships no CMake config: nested-dissection ordering for
# the local-global system matrix (Eigen/MetisSupport).
find_path(METIS_INCLUDE_DIR metis.h REQUIRED)
find_library(METIS_LIBRARY metis REQUIRED)
if(NOT TARGET METIS::metis)
  add_library(METIS::metis UNKNOWN IMPORTED)
  set_target_properties(METIS::metis PROPERTIES IMPORTED_LOCATION "${METIS_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}")
endif()
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
