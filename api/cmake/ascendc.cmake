# ascendc.cmake - what CANN's AscendC kernel toolchain offers a CMake recipe
# (ASCENDC_CMAKE_DIR/ascendc.cmake), as aclsim's CANN-layout tree has it.
#
# aclsim simulates the runtime, not AI cores: there is no kernel compiler.
# A recipe that only includes this file (many of CANN's samples do, whether
# or not they build a kernel) configures as usual; one that asks for a
# kernel library stops here with a message saying why.
function(ascendc_library name)
    message(FATAL_ERROR "aclsim: ascendc_library(${name}): AscendC kernels are outside the "
                        "simulator (aclsim simulates the runtime, not AI cores)")
endfunction()

function(ascendc_fatbin_library name)
    message(FATAL_ERROR "aclsim: ascendc_fatbin_library(${name}): AscendC kernels are outside "
                        "the simulator (aclsim simulates the runtime, not AI cores)")
endfunction()
