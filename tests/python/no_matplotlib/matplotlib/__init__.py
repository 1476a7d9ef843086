# Stands in for a machine without matplotlib: test_examples.py puts this folder first on
# PYTHONPATH so that plot_contacts.py's `import matplotlib` fails as it would there.
raise ImportError("No module named 'matplotlib' (the test's stand-in for a missing matplotlib)")
