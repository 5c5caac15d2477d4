module example.com/vulnerable

go 1.26.0

require gopkg.in/yaml.v2 v2.2.2
