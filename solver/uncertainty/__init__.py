"""Plans under uncertainty (issue 38): scenarios drawn from distributions, each option checked in each, and the plan that holds with a chosen probability."""
