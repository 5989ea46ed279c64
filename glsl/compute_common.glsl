// Shared by every stage of the compute backend (see compute_engine.cpp).
