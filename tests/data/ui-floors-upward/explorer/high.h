#pragma once
#include "render/low.h"
