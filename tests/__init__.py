"""Tests of the site itself: its build machinery (sitebuild/), run on small fixture sites."""
