#pragma once
#include "census/side.h"
#include "explorer/high.h"
#include "render/low.h"
#include <QString>
#include "model/modelinfo.h"
