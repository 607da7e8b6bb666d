"""Pietrek's experiments on their own platform: a bundle of PE programs and a runner that a
Windows machine runs without installing anything, and the same bundle run here under Wine.

experiments: what each Windows experiment is (its cases, its classic); bundle: building and
zipping it; wine: running it under Wine; results: reading back what a runner wrote.
"""
