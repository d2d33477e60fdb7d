// placeholder until codegen emits this file
