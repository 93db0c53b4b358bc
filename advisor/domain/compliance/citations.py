"""What each compliance rule and threshold cites: public documents, in the reader's language.

Every citation names documents a reader can look up: a standard with its clause, a law or
regulation with its article, a notice with its number and date, a URL where one exists
(docs/decisions/0026-public-citations.md, amendment 2026-12). Chinese laws and standards keep
their Chinese official titles in both languages, with an English gloss in the English text;
the Chinese translation (``locale/zh_Hans``) gives the Chinese titles alone.

Where no public document sets a threshold the citation says so: an industry rule of thumb
names who publishes it, and this tool's own rules of thumb say that they are its own. The
article the buyer supplied (an advertorial) is cited only for what the buyer asks for, always
in the words of :data:`BUYER_REQUIREMENT`, never as the authority for a threshold.
``tests/unit/test_public_citations.py`` fails on a citation of an internal note.
"""

from __future__ import annotations

from advisor.domain.i18n import N_

# The only way the buyer's source article is cited (tests check it, in both languages).
BUYER_REQUIREMENT = "Buyer's requirement (source article)"
BUYER_REQUIREMENT_ZH = "采购方要求（来源文章）"

# --- Site ---------------------------------------------------------------------------------------

INLET_ENVELOPE = N_(
    "GB 50174-2017《数据中心设计规范》(Code for design of data centers), Appendix A: cold "
    "aisle or cabinet inlet 18-27 °C, dew point 5.5-15 °C, RH ≤ 60%; ASHRAE TC 9.9, Thermal "
    "Guidelines for Data Processing Environments, recommended envelope 18-27 °C. Buyer's "
    "requirement (source article): room held at 18-25 °C and 40-60% RH."
)
HUMIDITY_CONTROL = N_(
    "GB 50174-2017《数据中心设计规范》(Code for design of data centers), Appendix A: inlet RH "
    "≤ 60%, dew point ≤ 15 °C. Guiyang's summer mean RH of about 80% (2014-2023): Guiyang "
    "Meteorological Observatory, reported by People's Daily Online Guizhou, 2024-05-17, "
    "http://gz.people.com.cn/n2/2024/0517/c406599-40847071.html. Buyer's requirement (source "
    "article): precision humidity control against condensation."
)
PUE = N_(
    "《数据中心绿色低碳发展专项行动计划》(Special Action Plan for the Green and Low-Carbon "
    "Development of Data Centers), NDRC, MIIT, NEA and NDA, 2024-07-23, "
    "https://www.gov.cn/zhengce/zhengceku/202407/P020240724272072479001.pdf: PUE limits for "
    "data centers in the national hub nodes; a zone with a local limit names its own policy "
    "document."
)
RACK_POWER = N_(
    "Server power: the maker's specification (e.g. NVIDIA DGX H100/H200 User Guide, "
    "Introduction: 10.2 kW maximum per system, "
    "https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html); power per "
    "rack: the data center operator's rating."
)
RACK_COOLING = N_(
    "Industry rule of thumb, not a standard (no public standard sets these bands): air with "
    "containment to about 30 kW per rack, rear-door or in-row units to about 60 kW, liquid "
    "cooling above; published in vendor white papers such as Schneider Electric White Paper "
    "156, Choosing the Optimal Data Center Power Density, and in ASHRAE TC 9.9, Emergence and "
    "Expansion of Liquid Cooling in Mainstream Data Centers (2021)."
)
DUAL_FEED = N_(
    "GB 50174-2017《数据中心设计规范》(Code for design of data centers), clause 8.1: a Class A "
    "data center is supplied by two utility sources plus a backup source. Buyer's requirement "
    "(source article): dual utility feeds."
)
UPS = N_(
    "GB 50174-2017《数据中心设计规范》(Code for design of data centers), clause 8.1 and Appendix "
    "A: Class A UPS battery backup at least 15 min. Buyer's requirement (source article): at "
    "least 30 min."
)
GENERATOR = N_(
    "Buyer's requirement (source article): automatic start within 15 s. GB 50052-2009"
    "《供配电系统设计规范》(Code for design of electric power supply systems), clause 3.0.5: a "
    "fast self-starting generator set serves loads that allow an interruption of 15 s or more; "
    "the UPS bridges shorter gaps."
)
HVDC = N_(
    "Buyer's requirement (source article): HVDC supply with at least 94% conversion "
    "efficiency; no public standard found sets 94%. 240 V DC systems: YD/T 2378-2011"
    "《通信用240V直流供电系统》(240 V DC power supply system for telecommunications), MIIT."
)
FLOOR_LOAD = N_(
    "Server weight: the maker's specification (e.g. NVIDIA DGX H100/H200 User Guide, "
    "Introduction: 130.45 kg per system, "
    "https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html); rack "
    "position and floor ratings: the data center operator's rated loads."
)
BGP = N_(
    "Buyer's requirement (source article): multi-carrier BGP bandwidth; a vendor-selection "
    "rule of thumb, no public standard requires it."
)
LATENCY = N_(
    "Buyer's requirement (source article): within 30 ms to East and South China; no national "
    "standard sets it. For comparison, Guizhou's hub-node target is one-way latency within "
    "20 ms to the Greater Bay Area, the Yangtze River Delta and Chengdu-Chongqing (Guizhou's "
    "2022 implementing opinion for the national hub node, reported by topoint.com.cn on "
    "2022-08-02, http://m.topoint.com.cn/tongxin/20220802/0219605.html)."
)
PACKET_LOSS = N_(
    "Buyer's requirement (source article): packet loss below 0.1%. For comparison: ITU-T "
    "Recommendation Y.1541, Network performance objectives for IP-based services, IP packet "
    "loss ratio objective 1 × 10⁻³ (0.1%) for QoS classes 0-4, https://www.itu.int/rec/T-REC-Y.1541."
)
STAFF_24X7 = N_(
    "Buyer's requirement (source article): engineers on site 7×24; a service-level term to "
    "agree in the contract, no public standard sets it."
)
SPARE_PARTS = N_(
    "Buyer's requirement (source article): failed parts replaced from on-site stock within 2 "
    "hours; a service-level term to agree in the contract, no public standard sets it."
)
FAULT_RESPONSE = N_(
    "Buyer's requirement (source article): hardware faults answered around the clock within 24 "
    "hours; a service-level term to agree in the contract, no public standard sets it."
)
CONTRACT_MTTR = N_(
    "Buyer's requirement (source article): the contract states the mean time to repair and "
    "the compensation when it is missed; a service-level term, no public standard sets it."
)

# --- Hosting vendor -------------------------------------------------------------------------------

TELECOM_LICENCE = N_(
    "《电信业务分类目录（2015年版）》(Classification Catalogue of Telecommunications Services, "
    "2015 edition), MIIT: B11 Internet data center business; 《电信业务经营许可管理办法》"
    "(Measures for the Administration of Telecommunications Business Licensing), MIIT Order "
    "No. 42, 2017. Licence lookup: https://dxzhgl.miit.gov.cn/"
)
LICENCE_REGION = N_(
    "《中华人民共和国电信条例》(Telecommunications Regulations of the PRC), State Council Order "
    "No. 291, Article 9: value-added services in two or more provinces need MIIT's "
    "cross-region licence, services within one province a licence from that province's "
    "communications administration; 《电信业务经营许可管理办法》(Measures for the "
    "Administration of Telecommunications Business Licensing), MIIT Order No. 42, 2017."
)
ICP_FILING = N_(
    "《互联网信息服务管理办法》(Measures for the Administration of Internet Information "
    "Services), State Council Order No. 292: Article 4 (a licence for commercial services, a "
    "filing for non-commercial ones) and Article 12 (the number shown on the home page). "
    "Filing lookup: https://beian.miit.gov.cn/"
)
ISO27001 = N_(
    "ISO/IEC 27001:2022, Information security management systems — Requirements, "
    "https://www.iso.org/standard/82875.html; ISO/IEC 17021-1:2015, clause 9.6.2.2 "
    "(surveillance audits at least once a calendar year), "
    "https://www.iso.org/standard/61651.html; IAF MD 26:2023, Transition Requirements for "
    "ISO/IEC 27001:2022 (certificates to the 2013 edition ended on 2025-10-31). Buyer's "
    "requirement (source article): ISO/IEC 27001 certification."
)
ISO9001 = N_(
    "ISO 9001:2015, Quality management systems — Requirements, "
    "https://www.iso.org/standard/62085.html; ISO/IEC 17021-1:2015, clause 9.6.2.2 "
    "(surveillance audits at least once a calendar year), "
    "https://www.iso.org/standard/61651.html. Buyer's requirement (source article): ISO 9001 "
    "certification."
)
MLPS = N_(
    "《信息安全等级保护管理办法》(Administrative Measures for the Classified Protection of "
    "Information Security), 公通字〔2007〕43号, Ministry of Public Security and others, "
    "2007-06-22, Article 14: level-3 systems are assessed at least once a year; GB/T "
    "22239-2019《信息安全技术 网络安全等级保护基本要求》(Baseline for classified protection of "
    "cybersecurity), chapter 8 (level 3). Buyer's requirement (source article): level 3 "
    "(等保三级)."
)
SELF_OPERATED = N_(
    "Buyer's requirement (source article): a licensed vendor running its own data center "
    "(持牌自营); no public rule requires it."
)
NETWORK = N_(
    "Buyer's requirement (source article): the vendor's own BGP network and backbone links; "
    "advice, no public rule requires it."
)

# --- Hardware ---------------------------------------------------------------------------------------

INTRANODE_LINK = N_(
    "NVIDIA technical blog, Introducing NVIDIA HGX H100: An Accelerated Server Platform for AI "
    "and High-Performance Computing (eight H100 GPUs fully connected through NVSwitch), "
    "https://developer.nvidia.com/blog/introducing-nvidia-hgx-h100-an-accelerated-server-platform-for-ai-and-high-performance-computing/. "
    "Requiring it from 4 GPUs per server is an industry rule of thumb (tensor parallelism kept "
    "inside one NVLink domain, as in Megatron-LM practice). Buyer's requirement (source "
    "article): all-to-all links inside 4- and 8-GPU servers."
)
INTERNODE_NIC = N_(
    "NVIDIA HGX AI Factory reference architecture for H100, H200 and B200 (2-8-9-400 servers: "
    "nine 400 Gb/s NICs for eight GPUs). Buyer's requirement (source article): RoCE or "
    "InfiniBand between servers."
)
NVME = N_(
    "Buyer's requirement (source article): at least 8 TB of usable local NVMe and 6 GB/s "
    "sequential read per server; no public standard sets these figures. For comparison: "
    "NVIDIA DGX H100/H200 User Guide, Introduction (8 × 3.84 TB NVMe data drives), "
    "https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html."
)
SOFTWARE_STACK = N_(
    "PyTorch Release Compatibility Matrix, "
    "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix; "
    "NVIDIA CUDA Toolkit Release Notes, https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/. "
    "Buyer's requirement (source article): PyTorch 2.x with CUDA 12.x (PyTorch 2.0 was also "
    "built for CUDA 11.7 and 11.8)."
)
AVAILABILITY = N_(
    "US Department of Commerce, Bureau of Industry and Security, interim final rules on "
    "advanced computing items (ECCN 3A090 and 4A090, 15 CFR 744): FR Doc. 2022-21658, "
    "2022-10-13, https://www.federalregister.gov/documents/2022/10/13/2022-21658/implementation-of-additional-export-controls-certain-advanced-computing-and-semiconductor; "
    "FR Doc. 2023-23055, 2023-10-25, https://www.federalregister.gov/documents/2023/10/25/2023-23055/implementation-of-additional-export-controls-certain-advanced-computing-items-supercomputer-and. "
    "The accelerator's status and its date come with the sources listed for the accelerator."
)

# --- Cloud -------------------------------------------------------------------------------------------

DATA_RESIDENCY = N_(
    "《中华人民共和国个人信息保护法》(Personal Information Protection Law of the PRC), Articles "
    "38-40, http://www.npc.gov.cn/npc/c30834/202108/a8c4e3672c74491a80b53a172bb753fe.shtml; "
    "《中华人民共和国数据安全法》(Data Security Law of the PRC), Article 31, "
    "http://www.npc.gov.cn/npc/c30834/202106/7c9af12f51334a73b56d7938f99a788a.shtml; "
    "《数据出境安全评估办法》(Measures for the Security Assessment of Outbound Data Transfers), "
    "CAC Order No. 11, 2022, http://www.cac.gov.cn/2022-07/07/c_1658811536396503.htm"
)

# --- Thresholds (rule parameters) --------------------------------------------------------------------

P_INLET = N_(
    "GB 50174-2017《数据中心设计规范》(Code for design of data centers), Appendix A: cold "
    "aisle or cabinet inlet; ASHRAE TC 9.9, Thermal Guidelines for Data Processing "
    "Environments, recommended envelope"
)
P_TARGET_TEMP = N_(
    "Buyer's requirement (source article): room held at 18-25 °C; GB 50174-2017 Appendix A "
    "allows an inlet of up to 27 °C"
)
P_TARGET_RH = N_(
    "Buyer's requirement (source article): 40-60% RH, an industry rule of thumb from server "
    "makers' guidance; GB 50174-2017 Appendix A sets no RH floor (its lower bound is the "
    "5.5 °C dew point)"
)
P_HUMID_CLIMATE = N_(
    "GB 50174-2017《数据中心设计规范》(Code for design of data centers), Appendix A: inlet RH "
    "≤ 60%, so outdoor air more humid than that must be dehumidified (Guiyang's summer mean RH "
    "is about 80%: Guiyang Meteorological Observatory, reported by People's Daily Online "
    "Guizhou, 2024-05-17)"
)
P_AIR_PRACTICAL = N_(
    "Industry rule of thumb, no standard sets it (vendor white papers such as Schneider "
    "Electric White Paper 156): air with containment up to about 30 kW per rack"
)
P_AIR_LIMIT = N_(
    "Industry rule of thumb, no standard sets it (vendor white papers; ASHRAE TC 9.9 white "
    "paper on liquid cooling, 2021): above about 40 kW per rack air cooling is not practical"
)
P_REAR_DOOR = N_(
    "Industry rule of thumb, no standard sets it (vendor white papers): rear-door or in-row "
    "units up to about 60 kW per rack; direct liquid cooling above"
)
P_UPS_TARGET = N_(
    "Buyer's requirement (source article): UPS backup at least 30 minutes (GB 50174-2017 "
    "Class A requires 15)"
)
P_UPS_FLOOR = N_(
    "GB 50174-2017《数据中心设计规范》(Code for design of data centers), clause 8.1 and Appendix "
    "A, Class A: UPS battery backup at least 15 min"
)
P_GENERATOR = N_(
    "Buyer's requirement (source article): automatic start within 15 s; GB 50052-2009"
    "《供配电系统设计规范》(Code for design of electric power supply systems), clause 3.0.5: a "
    "fast self-starting generator set serves loads that allow an interruption of 15 s or more"
)
P_HVDC = N_(
    "Buyer's requirement (source article): HVDC conversion efficiency not below 94%; no public "
    "standard found sets it"
)
P_RACK_FOOTPRINT = N_(
    "Rule of thumb: a 600 mm × 1200 mm server rack; set it to the site's rack size"
)
P_LATENCY = N_(
    "Buyer's requirement (source article): within 30 ms to East and South China; no national "
    "standard sets it (Guizhou's 2022 hub-node target: 20 ms one-way to the main eastern "
    "regions)"
)
P_PACKET_LOSS = N_(
    "Buyer's requirement (source article): below 0.1%; ITU-T Recommendation Y.1541 sets an IP "
    "packet loss ratio objective of 1 × 10⁻³ for QoS classes 0-4"
)
P_SPARE_PARTS = N_(
    "Buyer's requirement (source article): spare parts replaced within 2 hours; a "
    "service-level term, no public standard sets it"
)
P_FAULT_RESPONSE = N_(
    "Buyer's requirement (source article): a 24-hour fault response; a service-level term, no "
    "public standard sets it"
)
P_EXPIRY = N_(
    "This tool's rule of thumb, no public document sets it: a licence, certificate or "
    "assessment ending within 90 days may lapse before the contract starts"
)
P_ISO_AUDIT = N_(
    "ISO/IEC 17021-1:2015, clause 9.6.2.2: surveillance audits at least once a calendar year, "
    "the first within 12 months of the certification decision"
)
P_MLPS_INTERVAL = N_(
    "《信息安全等级保护管理办法》(Administrative Measures for the Classified Protection of "
    "Information Security), 公通字〔2007〕43号, Article 14: level-3 systems assessed at least "
    "once a year"
)
P_MLPS_LEVEL = N_(
    "Buyer's requirement (source article): MLPS level 3 (等保三级); the levels are defined in "
    "公通字〔2007〕43号 and GB/T 22239-2019"
)
P_ISO27001_2013 = N_(
    "IAF MD 26:2023, Transition Requirements for ISO/IEC 27001:2022: the transition ended on "
    "2025-10-31"
)
P_SHARDED = N_(
    "Industry rule of thumb (tensor parallelism kept inside one NVLink domain, as in "
    "Megatron-LM practice): an all-to-all link from 4 GPUs per server"
)
P_NVME_CAPACITY = N_(
    "Buyer's requirement (source article): at least 8 TB of usable local NVMe; no public "
    "standard sets it"
)
P_NVME_READ = N_(
    "Buyer's requirement (source article): data loading at least 6 GB/s sequential read; no "
    "public standard sets it"
)
P_CUDA = N_(
    "Buyer's requirement (source article): CUDA 12.x; PyTorch Release Compatibility Matrix, "
    "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix"
)
P_PYTORCH = N_("Buyer's requirement (source article): PyTorch 2.x")
P_AVAILABILITY_AGE = N_(
    "This tool's rule of thumb, no public document sets it: export-control status and supply "
    "change within months; check again after 90 days"
)
