# One merge of the catalog changes developed side by side (declared climate facts, Chinese names of
# sites, operators and hardware, tariffs and rack fees, cloud instance sizes and regions).

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("vendors", "0003_datacenter_declared_climate"),
        ("vendors", "0004_accelerator_server_chinese_names"),
        ("vendors", "0003_offer_instances_and_cloud_region"),
        ("vendors", "0003_tariffs_rack_fees"),
    ]

    operations = []
