// Tests arrive with this module's issue.
