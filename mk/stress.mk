# make stress: ada under the conditions most likely to break it (tests/stress/stress.py):
# 64 threads on tiny rings, thread churn, a signal every 10 us, a fork storm, dlopen/dlclose
# loops; each in fentry, cyg and patchable mode, each checking the output against a plain build, written +
# lost = calls, and ada-symbolize --check. About 2-5 minutes. STRESS_LOAD=1 runs a busy process
# per CPU meanwhile; STRESS_PARTS="churn sigstorm" runs some parts only.
.PHONY: stress
stress: all
	$(Q)tests/stress/stress.py $(if $(STRESS_LOAD),--load) $(STRESS_PARTS)
