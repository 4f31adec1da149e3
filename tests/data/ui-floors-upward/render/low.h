#pragma once
// A lower floor reaching up: the check must fail on this include.
#include "explorer/high.h"
