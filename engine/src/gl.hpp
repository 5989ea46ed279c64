#pragma once
// The one place the engine includes the GL loader.
#include <GL/glew.h>
