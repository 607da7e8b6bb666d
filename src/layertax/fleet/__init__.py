"""Running layertax on many machines with an engine teams already use: an Ansible playbook
(ansible/playbook.yml) installs layertax on each host from a wheel built here, runs the same
experiments on every host at once, and brings the results back to be filed and compared."""
