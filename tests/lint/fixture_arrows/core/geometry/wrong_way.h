// Lint fixture: geometry sits below sim, so this include points the wrong way (line 5).
#pragma once

#include "core/common/eigen_types.h"
#include "core/sim/world.h"
